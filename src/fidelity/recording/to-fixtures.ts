/**
 * A recording turned into fixtures (CONTRACT §13): the steps that recreate, in order, the merchants,
 * invoices and webhook configuration the recorded traffic created, in the format `svc fixtures
 * apply` takes. Ids become references (`${merchant-1:merchantId}`), so the steps run on an emulator
 * that issues its own; a merchant the recording only used gets a stand-in. Secrets were masked when
 * recorded: the webhook's comes from `${env:SVC_WEBHOOK_SECRET|…}`, custom header values likewise.
 */
import { OPERATIONS, type OperationId } from '../../contract/operations/index.js';
import { operationFinder } from '../contract/operations.js';
import { at, isRecord, parseJson, str } from '../json.js';
import type { RecordingLine } from './read.js';

/** A step of a fixtures file (src/cli/commands/fixtures/file.ts). */
export interface FixtureStepOut {
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  body: Record<string, unknown>;
  apiKey?: 'partner' | 'merchant';
}

export interface RecordingFixtures {
  steps: FixtureStepOut[];
  counts: { merchants: number; invoices: number; webhooks: number };
}

/** What the webhook secret becomes: an environment variable, with a placeholder 16+ characters long. */
export const SECRET_REFERENCE = '${env:SVC_WEBHOOK_SECRET|whsec_recorded_placeholder}';

const find = operationFinder();

/** Recorded text used as data: a `${` in it must not read as a reference. */
function literal(value: unknown): unknown {
  // A function: in a replacement string `$$` means one `$`.
  if (typeof value === 'string') return value.replaceAll('${', () => '$${');
  if (Array.isArray(value)) return value.map(literal);
  if (isRecord(value)) return literalObject(value);
  return value;
}

function literalObject(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)]));
}

export function fixturesFromRecording(lines: RecordingLine[]): RecordingFixtures {
  const steps: FixtureStepOut[] = [];
  const merchants = new Map<string, string>(); // merchantId → step name
  const invoices = new Set<string>();
  const known = knownMerchants(lines);
  let webhookSecretSet = false;
  const counts = { merchants: 0, invoices: 0, webhooks: 0 };
  const path = (id: OperationId) => OPERATIONS[id].path;

  const merchantStep = (merchantId: string, body: Record<string, unknown>): string => {
    const name = `merchant-${++counts.merchants}`;
    steps.push({ name, method: 'POST', path: path('createMerchant'), body });
    merchants.set(merchantId, name);
    return name;
  };
  /**
   * A merchant the recording used but did not create: a stand-in with the name and e-mail seen of it.
   * Its externalTenantId is a new one, since the target may well have the original (an emulator's
   * default merchant is on every emulator) and a second merchant with it is refused.
   */
  const standIn = (merchantId: string): string => {
    const seen = known.get(merchantId);
    return merchantStep(merchantId, {
      externalTenantId: `svc-recorded-${merchantId.slice(0, 8)}`,
      name: literal(seen?.name ?? 'Recorded merchant'),
      email: literal(seen?.email ?? 'recorded@example.com'),
    });
  };

  for (const { exchange } of lines) {
    const { request, response } = exchange;
    if (response.status < 200 || response.status >= 300) continue;
    const found = find(request.method, request.path);
    if (!found || !('id' in found)) continue;
    const sent = request.body === null ? {} : parseJson(request.body);
    const answer = parseJson(response.body);
    if (!isRecord(sent)) continue;
    if (found.id === 'createMerchant') {
      const merchantId = str(answer, 'merchantId');
      if (merchantId && !merchants.has(merchantId)) merchantStep(merchantId, literalObject(sent));
    } else if (found.id === 'createPartnerInvoice' || found.id === 'createInvoice') {
      const invoiceId = str(answer, 'id');
      if (!invoiceId || invoices.has(invoiceId)) continue;
      invoices.add(invoiceId);
      const body = literalObject(sent);
      if (body.token === MASKED) {
        const token = lockedToken(answer);
        if (token === undefined) delete body.token;
        else body.token = token;
      }
      if (found.id === 'createPartnerInvoice') {
        const merchantId = str(sent, 'merchantId') ?? str(answer, 'merchantId') ?? '';
        body.merchantId = `\${${merchants.get(merchantId) ?? standIn(merchantId)}:merchantId}`;
      }
      steps.push({
        name: `invoice-${++counts.invoices}`,
        method: 'POST',
        path: path(found.id),
        body,
        ...(found.id === 'createInvoice' ? { apiKey: 'merchant' as const } : {}),
      });
    } else if (found.id === 'putWebhook') {
      const body = literalObject(sent);
      // The secret was masked when recorded; the first PUT on a fresh emulator needs one.
      if ('secret' in body || !webhookSecretSet) body.secret = SECRET_REFERENCE;
      webhookSecretSet = true;
      const headers = at(sent, 'customHeaders');
      if (isRecord(headers)) {
        body.customHeaders = Object.fromEntries(Object.keys(headers).map((name) => [name, `\${env:SVC_WEBHOOK_HEADER_${envName(name)}|recorded}`]));
      }
      steps.push({ name: `webhook-${++counts.webhooks}`, method: 'PUT', path: path('putWebhook'), body });
    }
  }
  return { steps, counts };
}

/** What the journal's masking leaves of a secret-named value. */
const MASKED = '…';

/**
 * The token an invoice was locked to, read back from its answer (one address, one token): the
 * journal's masking, which the recording shares, shows a member named `token` only when its value is
 * a symbol svc lists (USDC, USDT); a deployment's other symbols arrive masked.
 */
function lockedToken(invoice: unknown): string | undefined {
  const addresses = at(invoice, 'addresses');
  const tokens = at(addresses, 0, 'tokens');
  return Array.isArray(addresses) && addresses.length === 1 && Array.isArray(tokens) && tokens.length === 1 ? str(tokens, 0, 'symbol') : undefined;
}

/** `X-Env` → `X_ENV`: a header name as part of an environment variable's name. */
const envName = (header: string) => header.toUpperCase().replace(/[^A-Z0-9]/g, '_');

/** What the recording shows of merchants (created, read or listed), by id: for stand-ins. */
function knownMerchants(lines: RecordingLine[]): Map<string, { externalTenantId?: string; name?: string; email?: string }> {
  const out = new Map<string, { externalTenantId?: string; name?: string; email?: string }>();
  const keep = (m: unknown) => {
    const id = str(m, 'merchantId');
    if (id) out.set(id, { externalTenantId: str(m, 'externalTenantId'), name: str(m, 'name'), email: str(m, 'email') });
  };
  for (const { exchange } of lines) {
    if (exchange.response.status !== 200 && exchange.response.status !== 201) continue;
    const found = find(exchange.request.method, exchange.request.path);
    if (!found || !('id' in found) || !['createMerchant', 'getMerchant', 'listMerchants'].includes(found.id)) continue;
    const answer = parseJson(exchange.response.body);
    keep(answer);
    const data = at(answer, 'data');
    if (Array.isArray(data)) for (const m of data) keep(m);
  }
  return out;
}
