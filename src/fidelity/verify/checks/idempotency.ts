import { at, str } from '../../json.js';
import type { Answer } from '../api.js';
import type { VerifyContext } from '../context.js';
import { expectEqual, expectError, expectShape, expectStatus, expectThat, summary } from '../expect.js';
import { defineChecks } from '../types.js';
import { startSlowRequest } from './slow-request.js';

/**
 * The create these checks repeat: the merchant's (interface §4.3) with a merchant key, else the
 * partner's. Each call is marked; `body` is what is sent, as an object or exactly as text.
 */
async function creator(ctx: VerifyContext) {
  const merchantKey = ctx.merchantKey;
  const { merchantId } = merchantKey ? { merchantId: undefined } : await ctx.merchant();
  const id = merchantKey ? ('createInvoice' as const) : ('createPartnerInvoice' as const);
  const key = merchantKey ?? ctx.partnerKey;
  const body = (fields: Record<string, unknown> = {}) => ({ ...(merchantId ? { merchantId } : {}), amount: '10.00', referenceId: ctx.marker(), ...fields });
  const create = (idempotencyKey: string | undefined, sent: Record<string, unknown> | string, headers?: Record<string, string>): Promise<Answer> =>
    ctx.call(id, {
      key,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      ...(typeof sent === 'string' ? { raw: sent } : { body: sent }),
      ...(headers ? { headers } : {}),
    });
  return { id, key, body, create };
}

/** CONTRACT §2: Idempotency-Key on creates, scoped, compared as canonical JSON, replayed byte for byte. */
export const idempotencyChecks = defineChecks([
  {
    id: 'idempotency.key-required',
    section: '§2',
    title: 'a create without Idempotency-Key is 400 idempotency_key_required',
    async run(ctx) {
      const { create, body } = await creator(ctx);
      expectError(ctx.contract, await create(undefined, body()), 400, 'idempotency_key_required');
      return undefined;
    },
  },
  {
    id: 'idempotency.key-invalid',
    section: '§2',
    title: 'an empty Idempotency-Key, or one over 255 characters, is 400 idempotency_key_invalid',
    async run(ctx) {
      const { create, body } = await creator(ctx);
      expectError(ctx.contract, await create('', body()), 400, 'idempotency_key_invalid');
      expectError(ctx.contract, await create(`${ctx.marker()}-`.padEnd(256, 'k'), body()), 400, 'idempotency_key_invalid');
      return undefined;
    },
  },
  {
    id: 'idempotency.replay-same-body',
    section: '§2',
    title: 'the same key and body again is 200, Idempotent-Replayed: true, the first body byte for byte',
    async run(ctx) {
      const { create, body } = await creator(ctx);
      const key = ctx.marker();
      const sent = body();
      const first = await create(key, sent);
      expectStatus(first, 201, 'for the first create');
      const again = await create(key, sent);
      expectStatus(again, 200, 'for the replay');
      expectThat(again.headers['idempotent-replayed'] === 'true', 'Idempotent-Replayed: true', JSON.stringify(again.headers['idempotent-replayed'] ?? null));
      expectShape(ctx.contract, again);
      expectThat(again.text === first.text, 'the first body, byte for byte', `${again.text.slice(0, 80)}… (first: ${first.text.slice(0, 80)}…)`);
      return undefined;
    },
  },
  {
    id: 'idempotency.replay-canonical',
    section: '§2',
    title: 'bodies are compared as canonical JSON: other key order and whitespace replay',
    async run(ctx) {
      const { create, body } = await creator(ctx);
      const key = ctx.marker();
      const sent = body();
      const first = await create(key, sent);
      expectStatus(first, 201, 'for the first create');
      const reordered = `{ ${Object.entries(sent)
        .reverse()
        .map(([k, v]) => `${JSON.stringify(k)} :  ${JSON.stringify(v)}`)
        .join(' ,\n ')} }`;
      const again = await create(key, reordered);
      expectStatus(again, 200, 'for the same body written otherwise');
      expectEqual(str(again.json, 'id'), str(first.json, 'id'), 'the same invoice:');
      return undefined;
    },
  },
  {
    id: 'idempotency.reuse-different-body',
    section: '§2',
    title: 'the same key with a different body is 422 idempotency_key_reused',
    async run(ctx) {
      const { create, body } = await creator(ctx);
      const key = ctx.marker();
      expectStatus(await create(key, body()), 201, 'for the first create');
      expectError(ctx.contract, await create(key, body({ amount: '11.00' })), 422, 'idempotency_key_reused');
      return undefined;
    },
  },
  {
    id: 'idempotency.scope-endpoint',
    section: '§2',
    title: 'a key is scoped to its endpoint: the same key on another create makes a new resource',
    async run(ctx) {
      const key = ctx.marker();
      const { merchantId } = await ctx.merchant();
      const invoice = await ctx.call('createPartnerInvoice', {
        key: ctx.partnerKey,
        idempotencyKey: key,
        body: { merchantId, amount: '10.00', referenceId: ctx.marker() },
      });
      expectStatus(invoice, 201, 'for the invoice');
      const merchant = await ctx.call('createMerchant', {
        key: ctx.partnerKey,
        idempotencyKey: key,
        body: { externalTenantId: ctx.marker(), name: 'svc verify', email: 'svc-verify@example.com' },
      });
      expectStatus(merchant, 201, 'for a merchant with the same key');
      return undefined;
    },
  },
  {
    id: 'idempotency.scope-tenant',
    section: '§2',
    title: 'create-merchant scopes its key by externalTenantId too: another tenant with the same key is a new merchant',
    async run(ctx) {
      const key = ctx.marker();
      const make = () =>
        ctx.call('createMerchant', {
          key: ctx.partnerKey,
          idempotencyKey: key,
          body: { externalTenantId: ctx.marker(), name: 'svc verify', email: 'svc-verify@example.com' },
        });
      const first = await make();
      expectStatus(first, 201, 'for the first merchant');
      const second = await make();
      expectStatus(second, 201, 'for another tenant with the same key');
      expectThat(str(second.json, 'merchantId') !== str(first.json, 'merchantId'), 'a new merchantId', 'the first one again');
      return undefined;
    },
  },
  {
    id: 'idempotency.failure-not-remembered',
    section: '§2',
    title: 'a refused create is not remembered: the same key then creates',
    async run(ctx) {
      const { create, body } = await creator(ctx);
      const key = ctx.marker();
      expectError(ctx.contract, await create(key, body({ amount: 'svc-verify' })), 400, 'validation_failed', 'amount');
      expectStatus(await create(key, body()), 201, 'for a valid create with the same key');
      return undefined;
    },
  },
  {
    id: 'idempotency.in-flight',
    section: '§2',
    title: 'the same key while the first request is still being sent is 409 idempotency_key_in_progress',
    async run(ctx) {
      const { id, key, create, body } = await creator(ctx);
      const idempotencyKey = ctx.marker();
      const sent = JSON.stringify(body());
      const slow = startSlowRequest(
        `${ctx.baseUrl}${ctx.path(id)}`,
        'POST',
        { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        sent,
      );
      let second: Answer;
      try {
        // Time for the first request's headers to arrive (through proxies too); its body is still coming.
        await new Promise((r) => setTimeout(r, 1000));
        second = await create(idempotencyKey, sent);
      } catch (error) {
        slow.abort();
        throw error;
      }
      const first = await slow.finish().catch((error: Error) => ({ status: 0, text: error.message }));
      expectError(ctx.contract, second, 409, 'idempotency_key_in_progress');
      expectThat(first.status === 201, '201 for the first request once its body arrived', `${first.status} ${first.text.slice(0, 120)}`);
      return undefined;
    },
  },
  {
    id: 'idempotency.race',
    section: '§2',
    title: 'five identical creates at once make one resource: one 201, the rest the same invoice (200) or 409',
    async run(ctx) {
      const { create, body } = await creator(ctx);
      const key = ctx.marker();
      const sent = body();
      const answers = await Promise.all(Array.from({ length: 5 }, () => create(key, sent)));
      const got = answers.map((a) => summary(a)).join(', ');
      expectThat(answers.filter((a) => a.status === 201).length === 1, 'exactly one 201', got);
      for (const a of answers) {
        // How a replay is marked is idempotency.replay-same-body's rule; this one is about one resource.
        const ok = a.status === 201 || a.status === 200 || str(a.json, 'error', 'code') === 'idempotency_key_in_progress';
        expectThat(ok, '201, 200 or 409 idempotency_key_in_progress for each', got);
      }
      const ids = new Set(answers.filter((a) => a.status < 300).map((a) => at(a.json, 'id')));
      expectThat(ids.size === 1, 'one invoice id among the successes', [...ids].join(', '));
      return undefined;
    },
  },
]);
