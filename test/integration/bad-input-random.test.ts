/**
 * Random requests to the create and webhook endpoints (any key, Idempotency-Key, Content-Type and
 * body, mostly invalid), and well-formed creates with plausible values that may still be refused.
 * Each request goes through `exercise()` (test/helpers/bad-input-emulator.ts): never a 5xx, always a
 * Request-Id, the exact error shape on a 4xx, and a 4xx leaves the database exactly as it was.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { build, bodyFor } from '../helpers/bad-input-bodies.js';
import { exercise, runs, useBadInputEmulator, world } from '../helpers/bad-input-emulator.js';
import { ENDPOINTS, ROUTE_LOCKS, rightKey } from '../helpers/bad-input-endpoints.js';
import { authorizationFor, contentType, idempotencyKey } from '../helpers/bad-input-headers.js';
import { fresh } from '../helpers/bad-input-values.js';

useBadInputEmulator();

describe('random requests to the create and webhook endpoints', () => {
  it('never 500, always a Request-Id, exact error shapes, and a 4xx changes nothing', async () => {
    const arb = fc
      .constantFrom(...ENDPOINTS)
      .chain((e) => fc.record({ e: fc.constant(e), auth: authorizationFor(e), idem: idempotencyKey, type: contentType, body: bodyFor(e) }));
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, ...parts }) => {
        const { res } = await exercise(build(e, parts));
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }),
      runs(700),
    );
    // Mostly refusals, of several kinds.
    const refused = [...statuses].filter(([s]) => s >= 400).reduce((n, [, c]) => n + c, 0);
    expect(refused).toBeGreaterThan(500);
    expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(4);
    // Bodies with "__proto__" keys went through the emulator, which runs in this process.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('well-formed creates with plausible values', () => {
  it('get 201, a 200 replay, or the contract’s refusal, and a refusal changes nothing', async () => {
    const creates = ENDPOINTS.filter((e) => e.idempotent);
    const lock = fc.constantFrom<Record<string, unknown>>(
      ...ROUTE_LOCKS,
      { networkId: 1 },
      { token: 'DAI' },
      { networkId: 2494104990, token: 'USDC' },
      { networkId: 103, token: 'USDT' },
    );
    const arb = fc.constantFrom(...creates).chain((e) => {
      const fields = Object.entries(e.fields());
      return fc.record({
        e: fc.constant(e),
        values: fc.tuple(
          ...fields.map(([name, f]) =>
            (f.required
              ? (f.plausible ?? f.valid).map((v) => ({ v }))
              : fc.option(
                  (f.plausible ?? f.valid).map((v) => ({ v })),
                  { nil: undefined },
                )
            ).map((x) => [name, x] as const),
          ),
        ),
        lock: fc.option(lock, { nil: undefined }),
        idem: fc.oneof({ weight: 2, arbitrary: fc.constant(null).map(() => fresh('idem')) }, fc.constantFrom('plausible-1', 'plausible-2')),
        key:
          e.principal === 'partner' ? fc.constantFrom(rightKey(e), rightKey(e), world.otherPartner.test) : fc.constantFrom(rightKey(e), world.otherMerchantKey),
        again: fc.boolean(),
      });
    });
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, values, lock: l, idem, key, again }) => {
        const body: Record<string, unknown> = {};
        for (const [name, x] of values) if (x) body[name] = x.v;
        if (l && e.path.includes('invoices')) Object.assign(body, l);
        const req = build(e, { auth: `Bearer ${key}`, idem, type: 'application/json', body: { kind: 'json', value: body } });
        const outcome = await exercise(req);
        if (again) {
          // The same request again: a success replays byte for byte; a refusal is not remembered
          // (only successful creates are) and is refused again the same way.
          const second = await exercise(req);
          seen.add(second.error?.code ?? String(second.res.status));
          if (outcome.res.status === 201 || outcome.res.status === 200) {
            if (second.res.status !== 200 || second.res.headers['idempotent-replayed'] !== 'true' || second.res.text !== outcome.res.text) {
              throw new Error(`not a replay: ${second.res.status} ${second.res.text.slice(0, 200)}`);
            }
          } else if (second.res.status !== outcome.res.status || second.error?.code !== outcome.error?.code) {
            throw new Error(`refused first with ${outcome.res.status} ${outcome.error?.code}, then ${second.res.status} ${second.res.text.slice(0, 200)}`);
          }
        }
        const { status } = outcome.res;
        const code = outcome.error?.code ?? String(status);
        seen.add(code);
        const allowed: Record<number, string[]> = {
          400: ['route_not_available'],
          404: ['merchant_not_found'],
          409: ['external_tenant_id_taken'],
          422: ['idempotency_key_reused'],
        };
        if (status === 200) {
          if (outcome.res.headers['idempotent-replayed'] !== 'true') throw new Error('a 200 on a create that is not a replay');
        } else if (status !== 201 && !allowed[status]?.includes(code)) {
          throw new Error(`unexpected answer ${status} ${outcome.res.text.slice(0, 300)}`);
        }
      }),
      runs(250),
    );
    // The run went through the interesting answers, not just one of them.
    for (const code of ['201', '200', 'merchant_not_found', 'external_tenant_id_taken', 'idempotency_key_reused', 'route_not_available'])
      expect(seen).toContain(code);
  });
});
