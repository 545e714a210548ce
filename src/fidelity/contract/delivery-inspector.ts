import type { IncomingHttpHeaders } from 'node:http';
import { createContractChecker, type ContractChecker } from './contract-checker.js';
import { isRecord, parseJson, str } from '../json.js';
import { SIGNATURE_FORMAT, signatureProblem, signatureTime } from './signature-rules.js';

/** A signature's timestamp may be this old (or this far ahead) when it arrives: interface §6.3's 5 minutes. */
const TOLERANCE_S = 300;

export interface DeliveryInspector {
  /** What in this delivery departs from the contract (§4–§5): one message per mismatch, none when it holds. */
  inspect(body: Buffer, headers: IncomingHttpHeaders): string[];
  /** From now on, check signatures against this secret too (listen learns it once it made the webhook). */
  useSecret(secret: string): void;
}

/**
 * Checks real deliveries (`svc webhook listen` against a deployment, CONTRACT §13): Content-Type, the
 * envelope against the document's WebhookEvent, its id `<invoiceId>-<sequence>`, the signature header's
 * form and age, and with the secret known, the HMAC itself.
 */
export function createDeliveryInspector(secret: string | null, checker: ContractChecker = createContractChecker()): DeliveryInspector {
  let known = secret;
  return {
    useSecret: (s) => void (known = s),
    inspect(body, headers) {
      const out: string[] = [];
      const type = String(headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (type !== 'application/json') out.push(`Content-Type is ${JSON.stringify(headers['content-type'] ?? null)}, not application/json`);
      const raw = body.toString('utf8');
      const envelope = parseJson(raw);
      if (envelope === undefined) out.push('the body is not JSON');
      else {
        for (const p of checker.checkSchema('WebhookEvent', envelope).slice(0, 3)) out.push(`envelope ${p.at || '/'} ${p.message}`);
        const data = isRecord(envelope) ? envelope.data : undefined;
        const expected = `${str(data, 'invoiceId')}-${String(isRecord(data) ? data.sequence : undefined)}`;
        if (str(envelope, 'id') !== expected)
          out.push(`envelope id ${JSON.stringify(str(envelope, 'id') ?? null)} is not <invoiceId>-<sequence> (${expected})`);
      }
      const header = headers['x-service-signature'];
      const signature = Array.isArray(header) ? header.join(',') : header;
      if (signature === undefined || !SIGNATURE_FORMAT.test(signature))
        out.push(`X-Service-Signature ${JSON.stringify(signature ?? null)} is not t=<unix>,v1=<64 hex>`);
      else {
        const age = Date.now() / 1000 - (signatureTime(signature) ?? 0);
        if (Math.abs(age) > TOLERANCE_S) out.push(`the signature's t is ${Math.round(age)} s ${age > 0 ? 'old' : 'ahead'} (receivers accept ${TOLERANCE_S} s)`);
        const problem = known === null ? null : signatureProblem(raw, signature, known);
        if (problem) out.push(problem);
      }
      return out;
    },
  };
}
