/**
 * What issue 12 asks of the served OpenAPI document beyond validity (openapi.test.ts): the contract
 * is the single source (the served document is the one built from it), errors are typed per
 * operation and status, every status the emulator can answer is declared, the webhooks and both
 * keys are described, and the control plane has response bodies.
 * Raw HTTP: `/openapi.json` is not an operation of the typed client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/contract/errors.js';
import { buildOpenApi } from '../../src/contract/openapi/build.js';
import { errorCodesOf } from '../../src/contract/operation.js';
import { OPERATIONS, operationEntries } from '../../src/contract/operations/index.js';
import { INVOICE_EVENT_TYPES } from '../../src/contract/enums.js';
import { VERSION } from '../../src/version.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

type Json = any;
let emu: TestEmulator;
let doc: Json;

beforeAll(async () => {
  emu = await startTestEmulator();
  doc = (await emu.call('GET', '/openapi.json')).body;
});
afterAll(() => emu.stop());

const resolve = (node: Json): Json =>
  node?.$ref
    ? resolve(
        (node.$ref as string)
          .slice(2)
          .split('/')
          .reduce((acc: Json, k) => acc?.[k.replaceAll('~1', '/')], doc),
      )
    : node;
const opById = (id: string): Json =>
  Object.values<Json>(doc.paths)
    .flatMap((item) => Object.values<Json>(item))
    .find((o) => o.operationId === id);
/** The codes an error response's schema allows. */
const codesOf = (response: Json): string[] => {
  const schema = resolve(response).content['application/json'].schema;
  return schema.properties.error.properties.code.enum;
};

describe('one source', () => {
  it('the served document is the one built from the contract (what `svc openapi` prints for this URL)', () => {
    expect(doc).toEqual(buildOpenApi(VERSION, emu.url));
  });

  it('every operation of the contract is in it, with its id, and nothing else', () => {
    const ids = Object.values<Json>(doc.paths).flatMap((item) => Object.values<Json>(item).map((o) => o.operationId));
    expect(ids.sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  it('uses the interface document’s parameter names: /v1/partner/webhook/deliveries/{id} and …/{id}/resend', () => {
    expect(doc.paths['/v1/partner/webhook/deliveries/{id}'].get.operationId).toBe('getDelivery');
    expect(doc.paths['/v1/partner/webhook/deliveries/{id}/resend'].post.operationId).toBe('resendDelivery');
    // A snapshot is named by its name (CONTRACT §9), not a UUID; a journal entry by its request id (`req_…`);
    // a local chain by its network's id (§14).
    expect(Object.keys(doc.paths).filter((p) => /\{(?!id\}|paymentId\}|name\}|requestId\}|networkId\})/.test(p))).toEqual([]);
    expect(Object.keys(doc.paths).filter((p) => p.includes('{networkId}') && !p.startsWith('/__emulator/chains/'))).toEqual([]);
    expect(opById('mineChain').parameters[0].schema).toMatchObject({ type: 'string', pattern: '^[1-9][0-9]{0,9}$' });
    expect(Object.keys(doc.paths).filter((p) => p.includes('{name}') && !p.startsWith('/__emulator/snapshots/'))).toEqual([]);
    expect(Object.keys(doc.paths).filter((p) => p.includes('{requestId}'))).toEqual(['/__emulator/requests/{requestId}']);
    expect(opById('getRequest').parameters).toEqual([
      { name: 'requestId', in: 'path', required: true, schema: { type: 'string', pattern: '^req_[0-9a-f]+$' } },
    ]);
  });
});

describe('errors', () => {
  it('components.schemas.Error is a real schema, not a reference to itself', () => {
    const error = doc.components.schemas.Error;
    expect(error.$ref).toBeUndefined();
    expect(error.properties.error.required).toEqual(['code', 'message']);
    expect(error.properties.error.properties.code.enum.sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it('each operation declares every status its error codes carry, each with exactly its codes', () => {
    for (const [id, op] of operationEntries()) {
      const served = opById(id);
      const byStatus = new Map<string, string[]>();
      for (const code of errorCodesOf(op)) byStatus.set(String(ERRORS[code].status), [...(byStatus.get(String(ERRORS[code].status)) ?? []), code]);
      for (const [status, codes] of byStatus) {
        expect(served.responses[status], `${id} ${status}`).toBeDefined();
        expect(codesOf(served.responses[status]).sort(), `${id} ${status}`).toEqual(codes.sort());
      }
    }
  });

  it('the statuses the issue found undeclared are there, where they apply', () => {
    const create = opById('createPartnerInvoice').responses;
    for (const status of ['400', '401', '403', '404', '408', '409', '413', '415', '422', '431', '500', '503', '507'])
      expect(create[status], status).toBeDefined();
    expect(codesOf(opById('getPartnerInvoice').responses['404'])).toEqual(['invoice_not_found']);
    // List endpoints answer errors too (a bad limit, a foreign merchant filter).
    const list = opById('listPartnerInvoices').responses;
    expect(codesOf(list['400'])).toContain('validation_failed');
    expect(codesOf(list['404'])).toEqual(['merchant_not_found']);
    // Reads never write: no 507, and their only 503 is the shared database's absence (CONTRACT §12).
    expect(list['507']).toBeUndefined();
    expect(list['503']).toEqual({ $ref: '#/components/responses/DatabaseUnavailable' });
    // confirm and expire document their success, not only the replay.
    expect(opById('confirmTestPayment').responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/PaymentResult');
    expect(codesOf(opById('expireTestInvoice').responses['409'])).toEqual(expect.arrayContaining(['invoice_not_expirable', 'idempotency_key_in_progress']));
  });
});

describe('headers and parameters', () => {
  it('Request-Id on every response, Idempotent-Replayed on replays, Retry-After on 503, Warning where a body is read', () => {
    for (const [id] of operationEntries()) {
      for (const [status, response] of Object.entries<Json>(opById(id).responses)) {
        expect(resolve(response).headers?.['Request-Id'], `${id} ${status}`).toBeDefined();
      }
    }
    const create = opById('createInvoice').responses;
    expect(create['200'].headers['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/IdempotentReplayed' });
    expect(create['201'].headers.Warning).toBeDefined();
    expect(resolve(create['503']).headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
  });

  it('path parameters are UUIDs; amount has its pattern; webhook url, secret and customHeaders their limits', () => {
    for (const p of opById('confirmTestPayment').parameters.filter((x: Json) => x.in === 'path')) expect(p.schema).toEqual({ type: 'string', format: 'uuid' });
    const schemas = doc.components.schemas;
    // The contract's pattern narrowed to what the server accepts: above zero, at most 18 integer digits.
    expect(schemas.CreateInvoiceRequest.properties.amount.pattern).toBe(
      '^([1-9][0-9]{0,17}(\\.[0-9]{1,6})?|0\\.([1-9][0-9]{0,5}|0[1-9][0-9]{0,4}|00[1-9][0-9]{0,3}|000[1-9][0-9]{0,2}|0000[1-9][0-9]{0,1}|00000[1-9][0-9]{0,0}))$',
    );
    const put = schemas.PutWebhookRequest.properties;
    expect(put.url.format).toBe('uri');
    expect(put.secret).toMatchObject({ minLength: 16, maxLength: 255 });
    expect(put.customHeaders.maxProperties).toBe(20);
  });
});

describe('keys, webhooks, extensions', () => {
  it('each operation names its own key: partner, merchant, either, or none', () => {
    expect(opById('createPartnerInvoice').security).toEqual([{ partnerKey: [] }]);
    expect(opById('createInvoice').security).toEqual([{ merchantKey: [] }]);
    expect(opById('createTestPayment').security).toEqual([{ partnerKey: [] }, { merchantKey: [] }]);
    expect(opById('getHealth').security).toEqual([]);
  });

  it('webhooks: every event type, its envelope, and the signature header with how to verify it', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...INVOICE_EVENT_TYPES]);
    for (const type of INVOICE_EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      const envelope = resolve(post.requestBody.content['application/json'].schema);
      expect(envelope.properties.type.const).toBe(type);
      expect(envelope.required).toEqual(['id', 'type', 'createdAt', 'environment', 'partnerId', 'data']);
      const signature = post.parameters.find((p: Json) => p.name === 'X-Service-Signature');
      expect(signature).toMatchObject({ in: 'header', required: true });
      expect(signature.description).toMatch(/HMAC-SHA256.*\{t\}\.\{rawBody\}.*5 minutes.*`id`/s);
    }
    expect(resolve(doc.webhooks['invoice.paid'].post.requestBody.content['application/json'].schema).properties.data.properties.status.const).toBe('PAID');
  });

  it('the control plane and test helpers are extensions with response bodies (streams as text/event-stream)', () => {
    for (const [id, op] of operationEntries()) {
      if (!('control' in op) && !('testOnly' in op)) continue;
      const served = opById(id);
      expect(served['x-svc-extension'], id).toBe(true);
      const [status, success] = Object.entries<Json>(served.responses).find(([s]) => s.startsWith('2'))!;
      const types = Object.keys(success.content ?? {});
      const expected =
        status === '204' ? [] : /stream/i.test(id) ? ['text/event-stream'] : id === 'exportSnapshot' ? ['application/vnd.sqlite3'] : ['application/json'];
      expect(types, id).toEqual(expected);
    }
  });
});
