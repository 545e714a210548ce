/**
 * How we know a check can fail (CONTRACT §13, issue 41): svc behind a drift proxy that changes ONE
 * thing the contract fixes. verify() runs through `svc proxy` in front of it, and must fail exactly
 * the checks that hold that rule (and pass every other); svc proxy must count the violation where
 * the OpenAPI document can see it (a webhook delivery, or a delivery record's payload bytes, it
 * cannot: those two are verify's alone). The clean case, the same stack without drift, fails none
 * and counts no violation in any answer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startProxy, type ContractProxy } from '../../src/fidelity/proxy/server.js';
import type { JournalFilter } from '../../src/server/public-types.js';
import { verify } from '../../src/index.js';
import type { VerifyReport } from '../../src/fidelity/verify/index.js';
import { startDriftProxy, type Drift, type DriftProxy } from '../helpers/drift-proxy.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

interface Case {
  name: string;
  drift: Drift;
  /** The checks that hold the rule the drift breaks: exactly these fail. */
  fails: string[];
  /**
   * Where svc proxy's journal (its filters) finds an answer it flagged, when the OpenAPI document
   * can see the drift; null when it cannot (svc proxy then counts no violation in any answer).
   */
  flagged: JournalFilter | null;
}

const json = (body: string, change: (value: any) => void) => {
  const value = JSON.parse(body);
  change(value);
  return JSON.stringify(value);
};

const CASES: Case[] = [
  {
    name: 'a status code: a new merchant answered 200 instead of 201',
    drift: { answer: (r, a) => (r.method === 'POST' && r.path === '/v1/partner/merchants' && a.status === 201 ? { ...a, status: 200 } : a) },
    fails: ['merchants.create', 'idempotency.scope-endpoint', 'idempotency.scope-tenant'],
    flagged: { method: 'POST', path: '/v1/partner/merchants', status: 200 },
  },
  {
    name: 'a missing field: checkoutUrl left out of a new partner invoice',
    drift: {
      answer: (r, a) =>
        r.method === 'POST' && r.path === '/v1/partner/invoices' && a.status === 201
          ? {
              ...a,
              body: json(a.body, (v) => {
                delete v.checkoutUrl;
              }),
            }
          : a,
    },
    fails: ['invoices.create-partner', 'invoices.checkout-url', 'invoices.get-partner'],
    flagged: { method: 'POST', path: '/v1/partner/invoices', status: 201 },
  },
  {
    name: 'a wrong error code: 401 answers say invalid_api_key',
    drift: { answer: (_r, a) => (a.status === 401 ? { ...a, body: a.body.replace('"unauthorized"', '"invalid_api_key"') } : a) },
    fails: ['auth.missing-key', 'auth.malformed-key', 'auth.unknown-key'],
    flagged: { status: 401 },
  },
  {
    name: 'a wrong status for an error: route_not_available answered 422',
    drift: { answer: (_r, a) => (a.status === 400 && a.body.includes('"route_not_available"') ? { ...a, status: 422 } : a) },
    fails: ['routes.network-not-available', 'routes.token-not-available', 'routes.payment-outside-lock'],
    flagged: { status: 422 },
  },
  {
    name: 'a missing header: idempotent replays without Idempotent-Replayed',
    drift: {
      answer: (_r, a) => {
        const { 'idempotent-replayed': _gone, ...headers } = a.headers;
        return { ...a, headers };
      },
    },
    fails: ['idempotency.replay-same-body'],
    flagged: { method: 'POST', status: 200 },
  },
  {
    name: 'a bad signature: the v1 of every delivery altered',
    drift: {
      delivery: (d) => ({
        ...d,
        headers: { ...d.headers, 'x-service-signature': d.headers['x-service-signature']!.replace(/.$/, (c) => (c === '0' ? '1' : '0')) },
      }),
    },
    fails: ['webhook.secret-kept', 'signatures.hmac'],
    flagged: null,
  },
  {
    name: 'a webhook body that differs from the delivery record: the record’s payload re-serialised',
    drift: {
      answer: (r, a) =>
        r.method === 'GET' && /^\/v1\/partner\/webhook\/deliveries\/[^/]+$/.test(r.path) && a.status === 200
          ? {
              ...a,
              body: json(a.body, (v) => {
                v.payload = JSON.stringify(JSON.parse(v.payload), null, 1);
              }),
            }
          : a,
    },
    fails: ['deliveries.payload'],
    flagged: null,
  },
];

interface Stack {
  emu: TestEmulator;
  drift: DriftProxy;
  proxy: ContractProxy;
  responseViolations: number;
}

const stacks: Stack[] = [];
afterAll(async () => {
  for (const s of stacks) {
    await s.proxy.stop();
    await s.drift.stop();
    await s.emu.stop();
  }
});

/** svc, the drift proxy before it, svc proxy before that; verify() against svc proxy. */
async function run(drift: Drift): Promise<{ report: VerifyReport; stack: Stack }> {
  const emu = await startTestEmulator();
  const driftProxy = await startDriftProxy(emu.url, drift);
  const stack: Stack = { emu, drift: driftProxy, proxy: undefined as unknown as ContractProxy, responseViolations: 0 };
  stack.proxy = await startProxy({
    upstream: driftProxy.url,
    onExchange: (e) => (stack.responseViolations += e.violations.filter((v) => v.where === 'response').length),
  });
  stacks.push(stack);
  const report = await verify({ baseUrl: stack.proxy.url, partnerKey: emu.keys.test.partnerKey, merchantKey: emu.keys.test.merchantKey });
  return { report, stack };
}

const failedIds = (report: VerifyReport) => report.checks.filter((c) => c.outcome === 'failed').map((c) => c.id);

describe('drift cases: each fails exactly the checks that hold its rule', () => {
  // Side by side: each run waits about 5 s for a real retry (no control plane behind the proxies).
  const runs = new Map<string, ReturnType<typeof run>>();
  const started = () => {
    if (runs.size === 0) {
      runs.set('clean', run({}));
      for (const c of CASES) runs.set(c.name, run(c.drift));
    }
    return runs;
  };

  it('without drift, through the same proxies, every check passes and svc proxy counts no violation in any answer', async () => {
    const { report, stack } = await started().get('clean')!;
    expect(report.checks.filter((c) => c.outcome !== 'passed')).toEqual([]);
    expect(stack.responseViolations).toBe(0);
  }, 180_000);

  for (const c of CASES) {
    it(c.name, async () => {
      const { report, stack } = await started().get(c.name)!;
      expect(
        failedIds(report),
        JSON.stringify(
          report.checks.filter((x) => x.outcome === 'failed'),
          null,
          1,
        ),
      ).toEqual(c.fails);
      expect(report.skipped).toBe(0);
      // Each failure says what was expected and what came.
      for (const f of report.checks.filter((x) => x.outcome === 'failed')) expect(f.detail).toMatch(/^expected .+; got .+/s);
      if (c.flagged) {
        expect(stack.responseViolations).toBeGreaterThan(0);
        const entries = stack.proxy.journal.page({ limit: 100, ...c.flagged })!.data;
        expect(entries.some((e) => e.violations.some((v) => v.where === 'response'))).toBe(true);
      } else expect(stack.responseViolations).toBe(0);
    }, 180_000);
  }
});
