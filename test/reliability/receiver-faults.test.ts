/**
 * Reliability: receiver faults (issue 7; CONTRACT §5). Real emulators on a manual clock, real local
 * receivers over real HTTP. Each receiver decides how to answer every request from the envelope
 * (which invoice) and how many times that envelope has arrived before (which attempt), records its
 * choice, and the test then holds every single recorded attempt of every delivery against it:
 *
 * - a 500 is an `http_status:` failure with responseStatus 500 and the body kept;
 * - a request never answered is a `timeout:` failure (no responseStatus) after the configured budget;
 * - a reset connection is a `connection_reset:` failure (no responseStatus);
 * - a 302 is a `redirect:` failure with responseStatus 302, never followed (the Location is never
 *   requested);
 * - a slow answer that comes within the timeout is a success, whatever its 2xx status.
 *
 * The clock walks the whole standard schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) one retry at
 * a time: one second before each retry is due nothing is sent, at the second it is due every retrying
 * delivery is attempted exactly once more; a delivery that succeeds at attempt k ends `succeeded`
 * with k attempts, one whose receiver never succeeds ends `failed` after exactly 8 attempts, with
 * `nextAttemptAt` null; afterwards nothing is ever attempted again.
 *
 * Two emulators, run concurrently (each wave of attempts takes as long as its slowest attempt, and
 * both files of this suite share a 5-minute budget):
 *
 * 1. "the cycle": 50 invoices, `webhooks.timeoutMs` 1.5 s. Each delivery i cycles through the four
 *    faults (a different one at each attempt) until its planned success attempt (i mod 9) + 1, where 9
 *    means never. Its success is the cycle's slow answer, scaled to this timeout: the answer comes
 *    after 600 ms, well within the 1.5 s budget (a literal 9-second answer would time out here, which
 *    is why the next emulator exists). With 50 deliveries every fault and the success meet every
 *    attempt number 1…8 (checked, so the coverage cannot silently shrink).
 * 2. "the 9-second answer": the default configuration, so the default 10 s timeout of CONTRACT §5.
 *    An answer that takes 9 seconds is in time: it SUCCEEDS, at the first attempt or at the second
 *    after a 500, a reset, a 302 or a real 10-second timeout.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { defaultConfig, STANDARD_RETRY_SCHEDULE } from '../../src/config/defaults.js';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Behaviour, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';

const SECRET = 'whsec_reliability_faults_0123456789';
/** CONTRACT §5, in seconds; the emulator's default must be exactly this. */
const STANDARD = [5, 300, 1800, 7200, 18000, 36000, 36000];
const MAX_ATTEMPTS = STANDARD.length + 1;
const T0 = Date.UTC(2031, 5, 1);
const iso = (ms: number) => new Date(ms).toISOString();
/** Emulator time of attempt k (1-based) of a delivery created at T0, on the standard schedule. */
const attemptTime = (k: number) => T0 + STANDARD.slice(0, k - 1).reduce((s, x) => s + x, 0) * 1000;

type Kind = 'http_status' | 'timeout' | 'connection_reset' | 'redirect' | 'success';

/** What the receiver did with one request. */
interface Choice {
  envelopeId: string;
  /** 1-based: the how-many-th request for this envelope. */
  n: number;
  kind: Kind;
  /** The status it answered, if it answered. */
  status: number | null;
  /** The body it answered, if it answered. */
  body: string | null;
  /** For redirects: where it pointed. */
  location?: string;
  /** For slow answers: how long it waited before answering. */
  delayMs?: number;
}

/** A receiver that decides per (invoice index, attempt number) and records every decision. */
interface FaultyReceiver {
  receiver: Receiver;
  /** Per envelope id, the choices in arrival order. */
  choices: Map<string, Choice[]>;
  /** Requests that did not verify or broke the plan. */
  problems: string[];
}

async function faultyReceiver(plan: (index: number, n: number, envelopeId: string, url: string) => Omit<Choice, 'envelopeId' | 'n'>): Promise<FaultyReceiver> {
  const choices = new Map<string, Choice[]>();
  const problems: string[] = [];
  let url = '';
  const behaviour = (req: ReceivedRequest): Behaviour => {
    let envelope: any;
    try {
      envelope = verifyWebhook(req.rawBody, req.headers['x-service-signature'] as string, SECRET);
    } catch (error) {
      problems.push(`${req.method} ${req.path}: ${(error as Error).message}`);
      return { status: 400 };
    }
    if (req.path !== '/hooks') problems.push(`a request went to ${req.path}: only /hooks is configured (a redirect followed?)`);
    // The invoice's amount carries its index: "<index + 1>.00".
    const index = Number(envelope.data.amount) - 1;
    const list = choices.get(envelope.id) ?? [];
    choices.set(envelope.id, list);
    const choice: Choice = { envelopeId: envelope.id, n: list.length + 1, ...plan(index, list.length + 1, envelope.id, url) };
    list.push(choice);
    switch (choice.kind) {
      case 'http_status':
        return { status: choice.status!, body: choice.body! };
      case 'timeout':
        return 'hang';
      case 'connection_reset':
        return 'reset';
      case 'redirect':
        return { redirect: choice.location!, status: 302 };
      case 'success':
        return { status: choice.status!, body: choice.body!, delayMs: choice.delayMs ?? 0 };
    }
  };
  const receiver = await startReceiver(behaviour);
  url = receiver.url;
  receivers.push(receiver);
  return { receiver, choices, problems };
}

const receivers: Receiver[] = [];
const emulators: TestEmulator[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await Promise.all(emulators.map((e) => e.stop()));
});

async function emulatorWith(webhooks: { retrySchedule: number[]; timeoutMs: number }): Promise<TestEmulator> {
  // Invoices outlive the walk through the schedule (a day and more): an invoice.expired event would
  // add deliveries the plans do not cover.
  const emu = await startTestEmulator({ clock: manualClock(T0), config: { webhooks, invoiceLifetimeSeconds: 400 * 86400 } });
  emulators.push(emu);
  return emu;
}

async function ok(emu: TestEmulator, method: string, path: string, options: Parameters<TestEmulator['call']>[2], status = 200): Promise<any> {
  const res = await emu.call(method, path, options);
  if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${res.text}`);
  return res.body;
}

async function allDeliveries(emu: TestEmulator, query = ''): Promise<any[]> {
  const out: any[] = [];
  let after = '';
  for (;;) {
    const page = await ok(emu, 'GET', `/v1/partner/webhook/deliveries?limit=100${query}${after}`, { key: emu.keys.test.partnerKey });
    out.push(...page.data);
    if (!page.hasMore) return out;
    after = `&startingAfter=${page.data.at(-1).id}`;
  }
}

/** Creates `count` invoices whose amounts carry their index; returns the envelope id of each one's creation event. */
async function createInvoices(emu: TestEmulator, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    // Both variants: the partner's and the merchant's invoices are delivered alike.
    const body = i % 2 === 0 ? { amount: `${i + 1}.00` } : { amount: `${i + 1}.00`, merchantId: emu.keys.test.merchantId };
    const route = i % 2 === 0 ? '/v1/invoices' : '/v1/partner/invoices';
    const key = i % 2 === 0 ? emu.keys.test.merchantKey : emu.keys.test.partnerKey;
    const invoice = await ok(emu, 'POST', route, { key, idempotencyKey: ikey(), body }, 201);
    ids.push(`${invoice.id}-1`);
  }
  return ids;
}

/**
 * Every attempt of a delivery against what the receiver chose for the same request; returns the
 * mismatches (empty when all is well).
 */
function compareAttempts(detail: any, choices: readonly Choice[], timeoutMs: number): string[] {
  const out: string[] = [];
  const where = (j: number) => `${detail.eventId} attempt ${j + 1}`;
  if (detail.attempts.length !== choices.length) {
    out.push(`${detail.eventId}: ${detail.attempts.length} attempts recorded, the receiver got ${choices.length} requests`);
    return out;
  }
  detail.attempts.forEach((a: any, j: number) => {
    const c = choices[j]!;
    if (a.number !== j + 1) out.push(`${where(j)}: number ${a.number}`);
    if (a.trigger !== 'scheduled') out.push(`${where(j)}: trigger ${a.trigger}`);
    if (a.startedAt !== iso(attemptTime(j + 1))) out.push(`${where(j)}: started at ${a.startedAt}, due at ${iso(attemptTime(j + 1))}`);
    const reason = `(${c.kind}: error ${JSON.stringify(a.error)}, responseStatus ${a.responseStatus}, body ${JSON.stringify(a.responseBody)}, ${a.durationMs} ms)`;
    switch (c.kind) {
      case 'http_status':
        if (!(a.error?.startsWith('http_status: ') && a.error.includes(String(c.status)) && a.responseStatus === c.status && a.responseBody === c.body))
          out.push(`${where(j)} ${reason}`);
        break;
      case 'timeout':
        // The attempt's single timer covers connect, headers and body: it fires at the budget.
        if (!(a.error?.startsWith('timeout: ') && a.responseStatus === null && a.durationMs >= timeoutMs - 50)) out.push(`${where(j)} ${reason}`);
        break;
      case 'connection_reset':
        if (!(a.error?.startsWith('connection_reset: ') && a.responseStatus === null && a.responseBody === null)) out.push(`${where(j)} ${reason}`);
        break;
      case 'redirect':
        if (!(a.error?.startsWith('redirect: ') && a.error.includes(c.location!) && a.responseStatus === 302)) out.push(`${where(j)} ${reason}`);
        break;
      case 'success':
        // Lower bounds only (an answer cannot come before the receiver sent it): how much later a busy
        // machine records it is not the emulator's behaviour (issue 23; an answer measured at 1,555 ms
        // against a 1,500 ms timeout was a success whose body the loaded machine read late).
        if (!(a.error === null && a.responseStatus === c.status && a.responseBody === c.body && a.durationMs >= (c.delayMs ?? 0) - 50))
          out.push(`${where(j)} ${reason}`);
        break;
    }
  });
  return out;
}

/** The delivery record's summary fields agree with its last attempt and with how it ended. */
function compareOutcome(detail: any, expected: { status: 'succeeded' | 'failed'; attempts: number }): string[] {
  const out: string[] = [];
  const last = detail.attempts.at(-1);
  const got = { status: detail.status, attemptCount: detail.attemptCount, nextAttemptAt: detail.nextAttemptAt };
  const want = { status: expected.status, attemptCount: expected.attempts, nextAttemptAt: null };
  if (JSON.stringify(got) !== JSON.stringify(want)) out.push(`${detail.eventId}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  if (last && (detail.lastResponseStatus !== last.responseStatus || detail.lastError !== last.error || detail.lastAttemptAt !== last.startedAt)) {
    out.push(
      `${detail.eventId}: lastResponseStatus/lastError/lastAttemptAt ${detail.lastResponseStatus}/${detail.lastError}/${detail.lastAttemptAt} are not the last attempt's`,
    );
  }
  return out;
}

/** Requests per envelope so far. */
const counts = (r: FaultyReceiver, ids: readonly string[]) => ids.map((id) => r.choices.get(id)?.length ?? 0);

describe('receiver faults through the whole standard schedule', () => {
  it('the emulator retries on the standard schedule by default, with a 10 s timeout', () => {
    // Both tests below rely on these: the contract's schedule and timeout are the defaults.
    expect(STANDARD_RETRY_SCHEDULE).toEqual(STANDARD);
    expect(defaultConfig().webhooks).toEqual({ retrySchedule: STANDARD, timeoutMs: 10_000 });
  });

  it.concurrent('50 deliveries cycling through 500, timeout, reset and 302 until a slow in-time answer (or never): each ends exactly as §5 says, every attempt recorded with its reason', async () => {
    const TIMEOUT_MS = 1500;
    const SLOW_MS = 600;
    const COUNT = 50;
    const FAULTS = ['http_status', 'timeout', 'connection_reset', 'redirect'] as const;
    const SUCCESS_STATUSES = [200, 201, 202, 204];
    /** The attempt at which delivery i first succeeds; MAX_ATTEMPTS + 1 means never. */
    const successAt = (i: number) => (i % (MAX_ATTEMPTS + 1)) + 1;

    const emu = await emulatorWith({ retrySchedule: [...STANDARD], timeoutMs: TIMEOUT_MS });
    const r = await faultyReceiver((i, n, envelopeId, url) => {
      if (n === successAt(i)) {
        const status = SUCCESS_STATUSES[i % SUCCESS_STATUSES.length]!;
        return { kind: 'success', status, body: status === 204 ? '' : `thanks ${envelopeId} #${n}`, delayMs: SLOW_MS };
      }
      if (n > successAt(i)) return { kind: 'http_status', status: 409, body: `attempt ${n} after a success` };
      const kind = FAULTS[(i + n) % FAULTS.length]!;
      if (kind === 'http_status') return { kind, status: 500, body: `boom ${envelopeId} #${n}` };
      if (kind === 'redirect') return { kind, status: 302, body: null, location: `${url}/moved/${envelopeId}/${n}` };
      return { kind, status: null, body: null };
    });
    await ok(emu, 'PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: `${r.receiver.url}/hooks`, secret: SECRET } });

    const ids = await createInvoices(emu, COUNT);
    const expectedAfter = (m: number) => ids.map((_, i) => Math.min(m, successAt(i), MAX_ATTEMPTS));

    // Wave 1 happens at T0 on its own (the deliveries are due at once); advancing by 0 waits for it.
    await emu.advanceClock(0);
    expect(counts(r, ids)).toEqual(expectedAfter(1));
    for (let m = 1; m < MAX_ATTEMPTS; m++) {
      const wait = STANDARD[m - 1]!;
      // One second early: nothing.
      await emu.advanceClock(wait - 1);
      expect(counts(r, ids), `one second before retry ${m}`).toEqual(expectedAfter(m));
      // Due: every delivery still retrying gets exactly one more attempt.
      const report = await emu.advanceClock(1);
      expect(emu.clock.now()).toBe(attemptTime(m + 1));
      expect(counts(r, ids), `after retry ${m} (attempt ${m + 1})`).toEqual(expectedAfter(m + 1));
      expect(report.attempts).toBe(ids.filter((_, i) => successAt(i) > m).length);
      // The records between waves: succeeded, or retrying and due exactly one schedule step later.
      const records = new Map((await allDeliveries(emu)).map((d) => [d.eventId, d]));
      const wrong = ids.flatMap((id, i) => {
        const d = records.get(id);
        const done = successAt(i) <= m + 1;
        const want = done
          ? { status: 'succeeded', attemptCount: successAt(i), nextAttemptAt: null }
          : m + 1 === MAX_ATTEMPTS
            ? { status: 'failed', attemptCount: MAX_ATTEMPTS, nextAttemptAt: null }
            : { status: 'retrying', attemptCount: m + 1, nextAttemptAt: iso(attemptTime(m + 2)) };
        const got = d && { status: d.status, attemptCount: d.attemptCount, nextAttemptAt: d.nextAttemptAt };
        return JSON.stringify(got) === JSON.stringify(want) ? [] : [`${id} after attempt ${m + 1}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`];
      });
      expect(wrong).toEqual([]);
    }
    // Long after the schedule: nothing more, ever.
    const after = await emu.advanceClock(30 * 86400);
    expect(after.attempts).toBe(0);
    expect(counts(r, ids)).toEqual(expectedAfter(MAX_ATTEMPTS));
    expect(r.problems).toEqual([]);
    expect([...r.choices.keys()].filter((id) => !ids.includes(id))).toEqual([]);

    // Every attempt of every delivery, against the receiver's own record of that request.
    const records = await allDeliveries(emu);
    expect(records).toHaveLength(COUNT);
    const mismatches: string[] = [];
    const seen = new Set<string>();
    for (const [i, id] of ids.entries()) {
      const d = records.find((x) => x.eventId === id);
      const detail = await ok(emu, 'GET', `/v1/partner/webhook/deliveries/${d.id}`, { key: emu.keys.test.partnerKey });
      const choices = r.choices.get(id) ?? [];
      mismatches.push(...compareAttempts(detail, choices, TIMEOUT_MS));
      const never = successAt(i) > MAX_ATTEMPTS;
      mismatches.push(...compareOutcome(detail, never ? { status: 'failed', attempts: MAX_ATTEMPTS } : { status: 'succeeded', attempts: successAt(i) }));
      for (const c of choices) seen.add(`${c.n}:${c.kind}`);
    }
    expect(mismatches).toEqual([]);

    // Coverage: every fault and the slow success met every attempt number.
    const missing: string[] = [];
    for (let n = 1; n <= MAX_ATTEMPTS; n++) for (const kind of [...FAULTS, 'success']) if (!seen.has(`${n}:${kind}`)) missing.push(`${kind} at attempt ${n}`);
    expect(missing).toEqual([]);
    // The list filters agree: how many succeeded, how many failed.
    const never = ids.filter((_, i) => successAt(i) > MAX_ATTEMPTS).length;
    expect(never).toBeGreaterThan(0);
    expect(await allDeliveries(emu, '&status=failed')).toHaveLength(never);
    expect(await allDeliveries(emu, '&status=succeeded')).toHaveLength(COUNT - never);
    expect(await allDeliveries(emu, '&status=retrying')).toHaveLength(0);
    // The redirects were never followed.
    expect(r.receiver.requests.filter((q) => q.path !== '/hooks')).toEqual([]);
  }, 120_000);

  it.concurrent('with the default 10 s timeout a 9-second answer succeeds, first time or after a 500, a reset, a 302 or a 10 s timeout', async () => {
    const config = defaultConfig().webhooks;
    const NINE_SECONDS = 9000;
    const COUNT = 10;
    const FIRST: (Kind | 'slow')[] = ['slow', 'http_status', 'connection_reset', 'redirect', 'timeout'];

    const emu = await emulatorWith(config);
    const r = await faultyReceiver((i, n, envelopeId, url) => {
      const kind = n === 1 ? FIRST[i % FIRST.length]! : 'slow';
      if (n > 2 || (n === 2 && FIRST[i % FIRST.length] === 'slow')) return { kind: 'http_status', status: 409, body: 'too many attempts' };
      if (kind === 'slow') return { kind: 'success', status: 200, body: `took nine seconds: ${envelopeId}`, delayMs: NINE_SECONDS };
      if (kind === 'http_status') return { kind, status: 500, body: `boom ${envelopeId}` };
      if (kind === 'redirect') return { kind, status: 302, body: null, location: `${url}/elsewhere/${envelopeId}` };
      return { kind, status: null, body: null };
    });
    await ok(emu, 'PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: `${r.receiver.url}/hooks`, secret: SECRET } });
    // Wave 1 starts as the invoices are created: the 9-second answers succeed, the faults fail (the
    // hang after the full 10 s).
    const first = Date.now();
    const ids = await createInvoices(emu, COUNT);
    await emu.advanceClock(0);
    const waveMs = Date.now() - first;
    expect(counts(r, ids)).toEqual(ids.map(() => 1));
    const expectedAttempts = ids.map((_, i) => (FIRST[i % FIRST.length] === 'slow' ? 1 : 2));
    // Wave 2, 5 s later: the rest get their 9-second answer; then the rest of the schedule passes.
    await emu.advanceClock(STANDARD[0]!);
    expect(counts(r, ids)).toEqual(expectedAttempts);
    const rest = await emu.advanceClock(STANDARD.slice(1).reduce((s, x) => s + x, 0) + 86400);
    expect(rest.attempts).toBe(0);
    expect(counts(r, ids)).toEqual(expectedAttempts);
    expect(r.problems).toEqual([]);
    expect([...r.choices.keys()].filter((id) => !ids.includes(id))).toEqual([]);
    // The first wave really waited for the hang's timeout: the timeout was not cut short.
    expect(waveMs).toBeGreaterThanOrEqual(config.timeoutMs);

    const mismatches: string[] = [];
    const records = await allDeliveries(emu);
    expect(records).toHaveLength(COUNT);
    for (const [i, id] of ids.entries()) {
      const d = records.find((x) => x.eventId === id);
      const detail = await ok(emu, 'GET', `/v1/partner/webhook/deliveries/${d.id}`, { key: emu.keys.test.partnerKey });
      mismatches.push(...compareAttempts(detail, r.choices.get(id) ?? [], config.timeoutMs));
      mismatches.push(...compareOutcome(detail, { status: 'succeeded', attempts: expectedAttempts[i]! }));
      // The slow success took at least its nine seconds.
      const last = detail.attempts.at(-1);
      if (!(last.durationMs >= NINE_SECONDS - 50 && last.durationMs < config.timeoutMs))
        mismatches.push(`${id}: the 9-second answer took ${last.durationMs} ms`);
    }
    expect(mismatches).toEqual([]);
    expect(await allDeliveries(emu, '&status=succeeded')).toHaveLength(COUNT);
  }, 120_000);
});
