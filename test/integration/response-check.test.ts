/**
 * The response checker (test/helpers/response-checker.ts) that the integration project's setup
 * installs catches drift between a handler and the document: a handler that answers a wrong shape,
 * an undeclared status or an undeclared error code is reported, through real HTTP.
 * Raw HTTP on purpose: most answers here come from handlers made to drift from the document, which the typed client cannot describe.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/contract/openapi/build.js';
import { ApiError } from '../../src/server/api-error.js';
import { observeResponses, responseObserver, type ObservedResponse } from '../../src/server/response-observer.js';
import { HANDLERS } from '../../src/server/routes/index.js';
import { VERSION } from '../../src/version.js';
import { ikey, startTestEmulator } from '../helpers/emulator.js';
import { createResponseChecker } from '../helpers/response-checker.js';

const doc = buildOpenApi(VERSION);
const original = { ...HANDLERS };
const suiteObserver = responseObserver();

afterEach(() => {
  Object.assign(HANDLERS, original);
  observeResponses(suiteObserver);
});

/** An emulator whose responses go to a checker of this test's own (not the suite's). */
async function checkedEmulator() {
  const checker = createResponseChecker(doc);
  observeResponses((r) => checker.check(r));
  const emu = await startTestEmulator();
  observeResponses(suiteObserver);
  return { emu, checker };
}

// The compiler already refuses each of these handlers (a wrong body or status is a type error,
// src/server/handler.ts); `as unknown as` forces them in, as a schema edited without its handler would.
describe('drift between a handler and the document is caught', () => {
  it('a body missing a field, or with a field of the wrong type', async () => {
    // Handlers answer asynchronously (they await the store).
    HANDLERS.getMerchant = (async (input: Parameters<typeof original.getMerchant>[0], deps: Parameters<typeof original.getMerchant>[1]) => {
      const reply = (await original.getMerchant(input, deps)) as { status: 200; body: Record<string, unknown> };
      const { autoPayoutEnabled: _dropped, ...rest } = reply.body;
      return { status: 200, body: { ...rest, dashboardAccess: 'yes' } };
    }) as unknown as typeof HANDLERS.getMerchant;
    const { emu, checker } = await checkedEmulator();
    try {
      const res = await emu.call('GET', `/v1/partner/merchants/${emu.keys.test.merchantId}`, { key: emu.keys.test.partnerKey });
      expect(res.status).toBe(200);
      const problems = checker.take().join('\n');
      expect(problems).toContain('getMerchant');
      expect(problems).toContain("must have required property 'autoPayoutEnabled'");
      expect(problems).toContain('/dashboardAccess must be boolean');
    } finally {
      await emu.stop();
    }
  });

  it('an extra field the schema does not have (the spliced invoice JSON too)', async () => {
    HANDLERS.getInvoice = (async (input: Parameters<typeof original.getInvoice>[0], deps: Parameters<typeof original.getInvoice>[1]) => {
      const reply = (await original.getInvoice(input, deps)) as { status: 200; json: string };
      return { status: 200, json: `${reply.json.slice(0, -1)},"colour":"red"}` };
    }) as unknown as typeof HANDLERS.getInvoice;
    const { emu, checker } = await checkedEmulator();
    try {
      const created = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1.00' } });
      expect(checker.take()).toEqual([]);
      await emu.call('GET', `/v1/invoices/${created.body.id}`, { key: emu.keys.test.merchantKey });
      expect(checker.take().join('\n')).toMatch(/getInvoice.*must NOT have additional properties.*colour/s);
    } finally {
      await emu.stop();
    }
  });

  it('a status the operation does not declare', async () => {
    HANDLERS.getClock = (() => ({ status: 202, body: { now: new Date().toISOString(), offsetSeconds: 0 } })) as unknown as typeof HANDLERS.getClock;
    const { emu, checker } = await checkedEmulator();
    try {
      expect((await emu.call('GET', '/__emulator/clock')).status).toBe(202);
      expect(checker.take().join('\n')).toContain('status 202 is not documented (documented: 200,');
    } finally {
      await emu.stop();
    }
  });

  it('an error code the operation does not declare for that status, or at another status than the catalog', async () => {
    HANDLERS.getWebhook = (() => {
      throw new ApiError(404, 'payment_not_found', 'not the webhook');
    }) as unknown as typeof HANDLERS.getWebhook;
    HANDLERS.getDefaultKeys = (() => {
      throw new ApiError(400, 'merchant_not_found', 'a 404 code sent as a 400');
    }) as unknown as typeof HANDLERS.getDefaultKeys;
    const { emu, checker } = await checkedEmulator();
    try {
      expect((await emu.call('GET', '/v1/partner/webhook', { key: emu.keys.test.partnerKey })).status).toBe(404);
      expect(checker.take().join('\n')).toMatch(/getWebhook.*\/error\/code must be equal to one of the allowed values.*webhook_not_configured/s);
      expect((await emu.call('GET', '/__emulator/keys')).status).toBe(400);
      expect(checker.take().join('\n')).toContain('merchant_not_found is a 404 in the catalog, sent as 400');
    } finally {
      await emu.stop();
    }
  });
});

describe('what the checker reads besides the body', () => {
  const checker = createResponseChecker(doc);
  const base: ObservedResponse = {
    operationId: 'getClock',
    method: 'GET',
    path: '/__emulator/clock',
    status: 200,
    headers: { 'request-id': 'req_1', 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ now: '2030-01-01T00:00:00.000Z', offsetSeconds: 0 }),
  };

  it('a matching response passes', () => {
    checker.check(base);
    expect(checker.take()).toEqual([]);
  });

  it('a missing Request-Id, an undeclared content type, a missing Retry-After on 503', () => {
    checker.check({ ...base, headers: { 'content-type': 'application/json' } });
    checker.check({ ...base, headers: { 'request-id': 'req_2', 'content-type': 'text/plain' } });
    checker.check({
      ...base,
      operationId: 'createInvoice',
      method: 'POST',
      path: '/v1/invoices',
      status: 503,
      body: JSON.stringify({ error: { code: 'database_busy', message: 'locked' } }),
    });
    const problems = checker.take().join('\n');
    expect(problems).toContain('no Request-Id header');
    expect(problems).toContain('Content-Type text/plain is not documented');
    expect(problems).toContain('required header Retry-After is missing');
  });

  it("a delivery whose payload is not the event type's envelope", () => {
    const envelope = (status: string) => ({
      id: '0190d3a4-0000-7000-8000-000000000000-2',
      type: 'invoice.paid',
      createdAt: '2030-01-01T00:00:00.000Z',
      environment: 'test',
      partnerId: '00000000-0000-4000-8000-000000000001',
      data: {
        invoiceId: '0190d3a4-0000-7000-8000-000000000000',
        merchantId: '00000000-0000-4000-8000-000000000002',
        externalTenantId: 't',
        status,
        amount: '1.00',
        amountReceived: '1.00',
        token: 'USDC',
        sequence: 2,
      },
    });
    const detail = (status: string) => ({
      id: '0190d3a4-0000-7000-8000-000000000009',
      eventId: '0190d3a4-0000-7000-8000-000000000000-2',
      eventType: 'invoice.paid',
      invoiceId: '0190d3a4-0000-7000-8000-000000000000',
      merchantId: '00000000-0000-4000-8000-000000000002',
      environment: 'test',
      url: 'http://localhost:3000/hooks',
      target: 'webhook',
      status: 'succeeded',
      attemptCount: 1,
      lastAttemptAt: null,
      nextAttemptAt: null,
      lastResponseStatus: 200,
      lastError: null,
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-01T00:00:00.000Z',
      payload: JSON.stringify(envelope(status)),
      attempts: [],
    });
    const get = { ...base, operationId: 'getDelivery', path: '/v1/partner/webhook/deliveries/x' };
    checker.check({ ...get, body: JSON.stringify(detail('PAID')) });
    expect(checker.take()).toEqual([]);
    // invoice.paid always reports PAID (CONTRACT §4).
    checker.check({ ...get, body: JSON.stringify(detail('PARTIALLY_PAID')) });
    expect(checker.take().join('\n')).toContain('the delivered payload does not match');
  });
});

// Found by Schemathesis against the served document (issue 24): the document promised more than
// the server keeps. Each case goes through real HTTP and is compared with what the document says.
describe('the document says exactly what the server accepts', () => {
  const amounts = [
    ['0', false],
    ['0.000000', false],
    ['0.0000001', false],
    ['1234567890123456789', false],
    ['1234567890123456789.5', false],
    ['01', false],
    ['0.000001', true],
    ['0.5', true],
    ['10.00', true],
    ['123456789012345678', true],
    ['123456789012345678.123456', true],
  ] as const;

  it.each(amounts)('amount %s: the pattern and the server agree (accepted: %s)', async (amount, accepted) => {
    const { emu, checker } = await checkedEmulator();
    try {
      const served = (await emu.call('GET', '/openapi.json')).body;
      const pattern = new RegExp(served.components.schemas.CreateInvoiceRequest.properties.amount.pattern, 'u');
      const res = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount } });
      expect(res.status).toBe(accepted ? 201 : 400);
      expect(pattern.test(amount)).toBe(accepted);
      expect(checker.take()).toEqual([]);
    } finally {
      await emu.stop();
    }
  });

  it('a refused amount says which rule it breaks, in one sentence', async () => {
    const emu = await startTestEmulator();
    try {
      const create = (amount: string) => emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount } });
      expect((await create('1234567890123456789')).body.error.message).toBe('amount must have at most 18 digits before the decimal point.');
      expect((await create('0.00')).body.error.message).toBe('amount must be greater than zero.');
      const merchant = await emu.call('POST', '/v1/partner/merchants', {
        key: emu.keys.test.partnerKey,
        idempotencyKey: ikey(),
        body: { externalTenantId: 't-email', name: 'Shop', email: 'not-an-address' },
      });
      expect(merchant.status).toBe(400);
      expect(merchant.body.error.message).toBe('email must be an e-mail address.');
    } finally {
      await emu.stop();
    }
  });

  it('a body the document marks optional may be left out, on a PUT too (PUT /__emulator/webhook-chaos: none = {})', async () => {
    const { emu, checker } = await checkedEmulator();
    try {
      const served = (await emu.call('GET', '/openapi.json')).body;
      expect(served.paths['/__emulator/webhook-chaos'].put.requestBody.required).toBe(false);
      const res = await emu.call('PUT', '/__emulator/webhook-chaos', { key: emu.keys.test.partnerKey });
      expect(res.status).toBe(200);
      expect(checker.take()).toEqual([]);
    } finally {
      await emu.stop();
    }
  });
});
