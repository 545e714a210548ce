/**
 * The pure parts of the fidelity tools (src/fidelity/): the OpenAPI checker on requests and answers,
 * the signature and address rules, the delivery inspector, what a recording masks, and a recording
 * turned into fixtures steps.
 */
import { describe, expect, it } from 'vitest';
import { createContractChecker } from '../../src/fidelity/contract/contract-checker.js';
import { createDeliveryInspector } from '../../src/fidelity/contract/delivery-inspector.js';
import { signatureProblem } from '../../src/fidelity/contract/signature-rules.js';
import { maskHeaders } from '../../src/fidelity/proxy/record-file.js';
import type { RecordingLine } from '../../src/fidelity/recording/read.js';
import { fixturesFromRecording } from '../../src/fidelity/recording/to-fixtures.js';
import { addressProblem } from '../../src/fidelity/verify/checks/address-format.js';
import { isLoopbackUrl } from '../../src/fidelity/verify/webhook-hook.js';
import { signatureHeader } from '../../src/webhooks/signature.js';

const checker = createContractChecker();
const INVOICE = {
  id: '01a22472-9959-7793-8eaf-711d5c681b65',
  status: 'CREATED',
  environment: 'test',
  amount: '10.00',
  amountReceived: '0.00',
  referenceId: null,
  checkoutUrl: 'http://127.0.0.1:4747/checkout/01a22472-9959-7793-8eaf-711d5c681b65',
  expiresAt: '2026-11-29T00:16:59.865Z',
  addresses: [],
};
const json = { 'content-type': 'application/json; charset=utf-8', 'request-id': 'req_01' };
const create = { method: 'POST', path: '/v1/invoices' };

describe('the contract checker', () => {
  it('a clean create and a clean replay have no violation; a replay without Idempotent-Replayed has one', () => {
    expect(checker.checkResponse(create, { status: 201, headers: json, body: JSON.stringify(INVOICE) })).toEqual([]);
    expect(checker.checkResponse(create, { status: 200, headers: { ...json, 'idempotent-replayed': 'true' }, body: JSON.stringify(INVOICE) })).toEqual([]);
    expect(checker.checkResponse(create, { status: 200, headers: json, body: JSON.stringify(INVOICE) })).toEqual([
      { where: 'response', path: '/headers/idempotent-replayed', message: 'Idempotent-Replayed is required on a 200 and missing' },
    ]);
  });

  it('names a missing field, an undocumented status, a code outside the catalog, a code on the wrong status, a missing Request-Id', () => {
    const { checkoutUrl: _, ...without } = INVOICE;
    expect(checker.checkResponse(create, { status: 201, headers: json, body: JSON.stringify(without) })).toEqual([
      { where: 'response', path: '/body', message: "must have required property 'checkoutUrl'" },
    ]);
    expect(checker.checkResponse(create, { status: 204, headers: { 'request-id': 'r' }, body: '' })[0]).toMatchObject({ path: '/status' });
    expect(checker.checkResponse(create, { status: 401, headers: json, body: '{"error":{"code":"invalid_api_key","message":"x"}}' })[0]).toEqual({
      where: 'response',
      path: '/body/error/code',
      message: '"invalid_api_key" is not one of the contract\'s error codes',
    });
    expect(checker.checkResponse(create, { status: 422, headers: json, body: '{"error":{"code":"route_not_available","message":"x"}}' })[0]).toEqual({
      where: 'response',
      path: '/status',
      message: 'route_not_available is a 400 in the contract, answered as 422',
    });
    expect(checker.checkResponse(create, { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(INVOICE) })).toEqual([
      { where: 'response', path: '/headers/request-id', message: 'Request-Id is missing (every response carries one)' },
    ]);
  });

  it('holds requests to their operation: a key, the Idempotency-Key, the query, the body', () => {
    const base = {
      method: 'POST',
      path: '/v1/invoices',
      query: '',
      headers: { authorization: 'Bearer test_x', 'content-type': 'application/json', 'idempotency-key': 'k' },
      body: '{"amount":"1.00"}',
    };
    expect(checker.checkRequest(base)).toEqual([]);
    expect(checker.checkRequest({ ...base, headers: { 'content-type': 'application/json' } }).map((v) => v.path)).toEqual([
      '/headers/authorization',
      '/headers/idempotency-key',
    ]);
    expect(checker.checkRequest({ ...base, body: '{"amount":1}' })).toEqual([{ where: 'request', path: '/body/amount', message: 'must be string' }]);
    expect(checker.checkRequest({ ...base, method: 'GET', query: 'limit=500', body: null })).toEqual([
      { where: 'request', path: '/query/limit', message: '"500" must be <= 100' },
    ]);
    expect(checker.checkRequest({ ...base, path: '/v1/nothing' })[0]).toMatchObject({ path: '/path' });
    expect(checker.checkRequest({ ...base, method: 'DELETE' })[0]).toMatchObject({ path: '/method' });
  });
});

describe('signatures and deliveries', () => {
  const body = JSON.stringify({
    id: `${INVOICE.id}-1`,
    type: 'invoice.created',
    createdAt: '2026-11-29T00:00:00.000Z',
    environment: 'test',
    partnerId: '8d0c1f5e-4a5b-4c1d-9e2f-0a1b2c3d4e5f',
    data: {
      invoiceId: INVOICE.id,
      merchantId: '9d0c1f5e-4a5b-4c1d-9e2f-0a1b2c3d4e5f',
      externalTenantId: 't',
      status: 'CREATED',
      amount: '1.00',
      amountReceived: '0.00',
      token: null,
      sequence: 1,
    },
  });
  const now = Math.floor(Date.now() / 1000);

  it('signatureProblem: none for a good one; the format, then the HMAC', () => {
    expect(signatureProblem(body, signatureHeader('whsec_secret_0123456', now, body), 'whsec_secret_0123456')).toBeNull();
    expect(signatureProblem(body, signatureHeader('another_secret_0123', now, body), 'whsec_secret_0123456')).toMatch(/not the HMAC-SHA256/);
    expect(signatureProblem(body, 'v1=abc', 'whsec_secret_0123456')).toMatch(/is not t=<unix>,v1=<64 hex>/);
    expect(signatureProblem(body, undefined, 'whsec_secret_0123456')).toBe('no X-Service-Signature header');
  });

  it('the delivery inspector: a clean delivery has nothing to say; a stale, unsigned or misnamed one has', () => {
    const headers = (signature: string) => ({ 'content-type': 'application/json', 'x-service-signature': signature });
    const known = createDeliveryInspector('whsec_secret_0123456', checker);
    expect(known.inspect(Buffer.from(body), headers(signatureHeader('whsec_secret_0123456', now, body)))).toEqual([]);
    expect(known.inspect(Buffer.from(body), headers(signatureHeader('whsec_secret_0123456', now - 600, body)))).toEqual([
      expect.stringMatching(/^the signature's t is 6\d\d s old/),
    ]);
    const unknown = createDeliveryInspector(null, checker);
    // Without the secret, the HMAC is not checked; learnt later, it is.
    const wrong = headers(signatureHeader('another_secret_0123', now, body));
    expect(unknown.inspect(Buffer.from(body), wrong)).toEqual([]);
    unknown.useSecret('whsec_secret_0123456');
    expect(unknown.inspect(Buffer.from(body), wrong)).toEqual([expect.stringMatching(/not the HMAC-SHA256/)]);
    const renamed = body.replace(`"${INVOICE.id}-1"`, '"evt_1"');
    expect(
      known.inspect(Buffer.from(renamed), { 'content-type': 'text/plain', 'x-service-signature': signatureHeader('whsec_secret_0123456', now, renamed) }),
    ).toEqual(['Content-Type is "text/plain", not application/json', `envelope id "evt_1" is not <invoiceId>-<sequence> (${INVOICE.id}-1)`]);
  });
});

describe('addresses, hosts, masking', () => {
  it('addressProblem: EIP-55, Tron Base58Check with 0x41, Solana 32 bytes', () => {
    expect(addressProblem('evm', '0x9A68907bbd3737a45cE9BdF9229e822b9F3DA7be')).toBeNull();
    expect(addressProblem('evm', '0x9a68907bbd3737a45ce9bdf9229e822b9f3da7be')).toBe('not EIP-55 checksummed');
    expect(addressProblem('tron', 'TVM5gjS3NkLCTWNz1D4xm8hHncgjYnztjg')).toBeNull();
    expect(addressProblem('tron', 'TVM5gjS3NkLCTWNz1D4xm8hHncgjYnztjh')).toBe('a wrong Base58Check checksum');
    expect(addressProblem('solana', '4hf8g8utgFyRui429kHNttMiajtdsno3FUdZquxN2id2')).toBeNull();
    expect(addressProblem('solana', '0OIl')).toBe('not Base58');
  });

  it('isLoopbackUrl: loopback names and addresses only', () => {
    for (const url of ['http://127.0.0.1:4747', 'http://localhost:1', 'http://app.localhost', 'http://[::1]:4747']) expect(isLoopbackUrl(url)).toBe(true);
    for (const url of ['https://sandbox.example.com', 'http://10.0.0.2', 'not a url']) expect(isLoopbackUrl(url)).toBe(false);
  });

  it('maskHeaders: the key as the journal shows it, secrets hidden, other headers kept', () => {
    expect(
      maskHeaders({ authorization: `Bearer pt_test_${'a'.repeat(28)}WXYZ`, cookie: 'sid=1', 'svc-control-token': 'tok', 'idempotency-key': 'k-1' }),
    ).toEqual({
      authorization: 'Bearer pt_test_…WXYZ',
      cookie: '…',
      'svc-control-token': '…',
      'idempotency-key': 'k-1',
    });
  });
});

describe('a recording as fixtures', () => {
  const line = (method: string, path: string, body: unknown, status: number, answer: unknown): RecordingLine => ({
    line: 1,
    exchange: {
      at: '',
      request: { method, path, query: '', headers: {}, body: body === null ? null : JSON.stringify(body) },
      response: { status, headers: {}, body: JSON.stringify(answer) },
      violations: [],
    },
  });

  it('merchants, invoices and webhooks in order; ids as references; replays and refusals left out; a locked token read back; `${` kept literal', () => {
    const m = 'aaaaaaaa-0000-4000-8000-000000000001';
    const { steps, counts } = fixturesFromRecording([
      line('POST', '/v1/partner/merchants', { externalTenantId: 't-1', name: 'N', email: 'n@e.x' }, 201, { merchantId: m }),
      line('POST', '/v1/partner/invoices', { merchantId: m, amount: '1.00', token: '…', networkId: 84532, referenceId: 'a-${b}' }, 201, {
        id: 'i1',
        addresses: [{ tokens: [{ symbol: 'USDC' }] }],
      }),
      line('POST', '/v1/partner/invoices', { merchantId: m, amount: '1.00' }, 200, { id: 'i1' }),
      line('POST', '/v1/partner/invoices', { merchantId: m, amount: 'x' }, 400, { error: {} }),
      line('PUT', '/v1/partner/webhook', { url: 'https://e.x/h', enabled: true, customHeaders: { 'X-Env': '…' } }, 200, {}),
    ]);
    expect(counts).toEqual({ merchants: 1, invoices: 1, webhooks: 1 });
    expect(steps).toEqual([
      { name: 'merchant-1', method: 'POST', path: '/v1/partner/merchants', body: { externalTenantId: 't-1', name: 'N', email: 'n@e.x' } },
      {
        name: 'invoice-1',
        method: 'POST',
        path: '/v1/partner/invoices',
        body: { merchantId: '${merchant-1:merchantId}', amount: '1.00', token: 'USDC', networkId: 84532, referenceId: 'a-$${b}' },
      },
      {
        name: 'webhook-1',
        method: 'PUT',
        path: '/v1/partner/webhook',
        body: {
          url: 'https://e.x/h',
          enabled: true,
          secret: '${env:SVC_WEBHOOK_SECRET|whsec_recorded_placeholder}',
          customHeaders: { 'X-Env': '${env:SVC_WEBHOOK_HEADER_X_ENV|recorded}' },
        },
      },
    ]);
  });
});
