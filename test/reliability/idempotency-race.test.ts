/**
 * Idempotency race (issue 7, reliability suite; CONTRACT §2), against a real emulator (port 0, a
 * SQLite file on disk): 200 requests at once, each on its own connection, with one Idempotency-Key.
 *
 * Same body: exactly one 201 and exactly one resource (rows counted: the invoice and its one event,
 * or the merchant, and one idempotency record); every other answer is a 200 replay
 * (`Idempotent-Replayed: true`) byte-identical to the 201, or a 409 `idempotency_key_in_progress`.
 * Different bodies: exactly one 201, every other answer a 409 or a 422 `idempotency_key_reused`, and
 * the one resource is the winner's. For create-invoice (merchant and partner variants) and
 * create-merchant, three rounds each with a fresh key: all at once on new connections, all at once on
 * open connections, and in 1 ms waves (see {@link Arrival}).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';
import { rowCounts } from './lib/input-db.js';
import { burstAgent, contractError, describeResponse, httpRequest, warmAgent, type WireResponse } from './lib/input-http.js';

const CONCURRENT = 200;
const dir = tempDir('svc-rel-race-');

let emu: TestEmulator;
const internalErrors: string[] = [];
const agent = burstAgent();

beforeAll(async () => {
  emu = await startTestEmulator({ db: path.join(dir, 'svc.db') });
  emu.on((event) => {
    if (event.type === 'error') internalErrors.push(event.message);
  });
});
afterAll(async () => {
  agent.destroy();
  await emu?.stop();
});

interface Variant {
  name: string;
  path: string;
  key: () => string;
  /** The i-th body of a round; `same` gives every request the same one. */
  body: (round: string, i: number, same: boolean) => Record<string, unknown>;
  /** The table the resource lands in, and whether it brings an event. */
  table: 'invoices' | 'merchants';
  /** The resource's row for the id in a 201 body, to compare with the winning request. */
  stored: (id: string) => Record<string, unknown> | undefined;
  matches: (row: Record<string, unknown>, body: Record<string, unknown>) => boolean;
}

const invoiceRow = (id: string) => emu.store.sqlite.prepare('SELECT * FROM invoices WHERE id = ?').get(id) as Record<string, unknown> | undefined;
const invoiceMatches = (row: Record<string, unknown>, body: Record<string, unknown>) => row.amount === body.amount && row.reference_id === body.referenceId;

const VARIANTS: Variant[] = [
  {
    name: 'create-invoice, merchant variant (POST /v1/invoices)',
    path: '/v1/invoices',
    key: () => emu.keys.test.merchantKey,
    body: (round, i, same) => ({ amount: same ? '10.00' : `${i + 1}.25`, referenceId: same ? `race-${round}` : `race-${round}-${i}` }),
    table: 'invoices',
    stored: invoiceRow,
    matches: invoiceMatches,
  },
  {
    name: 'create-invoice, partner variant (POST /v1/partner/invoices)',
    path: '/v1/partner/invoices',
    key: () => emu.keys.test.partnerKey,
    body: (round, i, same) => ({
      merchantId: emu.keys.test.merchantId,
      amount: same ? '10.00' : `${i + 1}.50`,
      referenceId: same ? `race-${round}` : `race-${round}-${i}`,
    }),
    table: 'invoices',
    stored: invoiceRow,
    matches: invoiceMatches,
  },
  {
    name: 'create-merchant (POST /v1/partner/merchants)',
    path: '/v1/partner/merchants',
    key: () => emu.keys.test.partnerKey,
    // One externalTenantId per round: it is part of the idempotency scope, so bodies differ elsewhere.
    body: (round, i, same) => ({
      externalTenantId: `race-tenant-${round}`,
      email: `race-${round}@example.com`,
      name: same ? `Shop ${round}` : `Shop ${round} #${i}`,
    }),
    table: 'merchants',
    stored: (id) => emu.store.sqlite.prepare('SELECT * FROM merchants WHERE id = ?').get(id) as Record<string, unknown> | undefined,
    matches: (row, body) => row.external_tenant_id === body.externalTenantId && row.name === body.name && row.email === body.email,
  },
];

let roundSerial = 0;

/**
 * How the 200 requests reach the server, one per round, so that they land in every window of the
 * first request's life (before its commit, between commit and release, after):
 * - `fresh`: all at once, each on a connection opened for it;
 * - `warm`: all at once on connections already open, so they arrive in one burst;
 * - `waves`: on open connections, 20 at a time, 1 ms apart, across the first one's processing.
 */
type Arrival = 'fresh' | 'warm' | 'waves';
const ARRIVALS: Arrival[] = ['fresh', 'warm', 'waves'];

async function race(v: Variant, same: boolean, arrival: Arrival) {
  const round = `${process.pid}-${++roundSerial}`;
  const idem = `race-key-${round}`;
  const bodies = Array.from({ length: CONCURRENT }, (_, i) => v.body(round, i, same));
  const headers = { authorization: `Bearer ${v.key()}`, 'idempotency-key': idem, 'content-type': 'application/json' };
  const via = arrival === 'fresh' ? burstAgent() : agent;
  if (arrival !== 'fresh') await warmAgent(emu.port, agent, CONCURRENT);
  const before = rowCounts(emu.store.sqlite);
  const send = (b: Record<string, unknown>) => httpRequest(emu.port, via, { method: 'POST', path: v.path, headers, body: JSON.stringify(b) });
  const settled = await Promise.allSettled(
    bodies.map((b, i) => (arrival === 'waves' ? new Promise<void>((ok) => setTimeout(ok, Math.floor(i / 20))).then(() => send(b)) : send(b))),
  );
  if (via !== agent) via.destroy();
  const after = rowCounts(emu.store.sqlite);
  const failures = settled.flatMap((s, i) => (s.status === 'rejected' ? [`request ${i}: ${(s.reason as Error).message}`] : []));
  expect(failures).toEqual([]);
  const responses = settled.map((s) => (s as PromiseFulfilledResult<WireResponse>).value);
  return { idem, bodies, headers, before, after, responses };
}

function tally(responses: WireResponse[]): string {
  const counts = new Map<string, number>();
  for (const r of responses) {
    const code = r.status >= 400 ? ` ${JSON.parse(r.text)?.error?.code}` : '';
    counts.set(`${r.status}${code}`, (counts.get(`${r.status}${code}`) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k}×${n}`).join(', ');
}

/** Throws unless `res` is the contract error `code` with `status`. */
function expectError(res: WireResponse, status: number, code: string, problems: string[], i: number): void {
  try {
    const e = contractError(res.text);
    if (res.status !== status || e.code !== code) problems.push(`#${i}: expected ${status} ${code}, got ${describeResponse(res)}`);
  } catch (error) {
    problems.push(`#${i}: ${(error as Error).message}`);
  }
}

describe.each(VARIANTS)('$name', (v) => {
  it(`${CONCURRENT} concurrent requests, one key, the same body: one 201, one resource, the rest byte-identical replays or 409`, async () => {
    for (const arrival of ARRIVALS) {
      const { responses, before, after, headers, bodies } = await race(v, true, arrival);
      const summary = tally(responses);
      const problems: string[] = [];
      const created = responses.filter((res) => res.status === 201);
      expect(created, summary).toHaveLength(1);
      const first = created[0]!;
      responses.forEach((res, i) => {
        if (!/\S/.test(res.headers['request-id'] ?? '')) problems.push(`#${i}: no Request-Id`);
        if (res.status === 201) return;
        if (res.status === 200) {
          if (res.headers['idempotent-replayed'] !== 'true') problems.push(`#${i}: a 200 without Idempotent-Replayed: true`);
          if (res.text !== first.text) problems.push(`#${i}: a replay that differs from the 201: ${res.text.slice(0, 200)} vs ${first.text.slice(0, 200)}`);
          return;
        }
        expectError(res, 409, 'idempotency_key_in_progress', problems, i);
      });
      expect(problems, summary).toEqual([]);

      // Exactly one resource, and it is the one the 201 described.
      const id = (JSON.parse(first.text).id ?? JSON.parse(first.text).merchantId) as string;
      const expected = { ...before, [v.table]: before[v.table]! + 1, idempotency_keys: before.idempotency_keys! + 1 };
      if (v.table === 'invoices') expected.events = before.events! + 1;
      expect(after, summary).toEqual(expected);
      const row = v.stored(id);
      expect(row, `the row of ${id}`).toBeDefined();
      expect(v.matches(row!, bodies[0]!)).toBe(true);

      // Once the dust settles, the same request is a replay of the very same bytes.
      const again = await httpRequest(emu.port, agent, { method: 'POST', path: v.path, headers, body: JSON.stringify(bodies[0]) });
      expect(again.status, describeResponse(again)).toBe(200);
      expect(again.text).toBe(first.text);
      console.log(`${v.name}, same body, ${arrival}: ${summary}`);
    }
    expect(internalErrors).toEqual([]);
  });

  it(`${CONCURRENT} concurrent requests, one key, different bodies: one 201, one resource (the winner's), the rest 409 or 422`, async () => {
    for (const arrival of ARRIVALS) {
      const { responses, before, after, headers, bodies } = await race(v, false, arrival);
      const summary = tally(responses);
      const problems: string[] = [];
      const winners = responses.flatMap((res, i) => (res.status === 201 ? [i] : []));
      expect(winners, summary).toHaveLength(1);
      const w = winners[0]!;
      responses.forEach((res, i) => {
        if (!/\S/.test(res.headers['request-id'] ?? '')) problems.push(`#${i}: no Request-Id`);
        if (i === w) return;
        try {
          const e = contractError(res.text);
          const allowed = (res.status === 409 && e.code === 'idempotency_key_in_progress') || (res.status === 422 && e.code === 'idempotency_key_reused');
          if (!allowed) problems.push(`#${i}: expected 409 idempotency_key_in_progress or 422 idempotency_key_reused, got ${describeResponse(res)}`);
        } catch (error) {
          problems.push(`#${i}: ${(error as Error).message}: ${describeResponse(res)}`);
        }
      });
      expect(problems, summary).toEqual([]);

      const winner = responses[w]!;
      const id = (JSON.parse(winner.text).id ?? JSON.parse(winner.text).merchantId) as string;
      const expected = { ...before, [v.table]: before[v.table]! + 1, idempotency_keys: before.idempotency_keys! + 1 };
      if (v.table === 'invoices') expected.events = before.events! + 1;
      expect(after, summary).toEqual(expected);
      const row = v.stored(id);
      expect(row, `the row of ${id}`).toBeDefined();
      expect(v.matches(row!, bodies[w]!), `the stored resource is request #${w}'s`).toBe(true);

      // Afterwards: the winner's body replays, any other body is 422.
      const replay = await httpRequest(emu.port, agent, { method: 'POST', path: v.path, headers, body: JSON.stringify(bodies[w]) });
      expect(replay.status, describeResponse(replay)).toBe(200);
      expect(replay.text).toBe(winner.text);
      const other = await httpRequest(emu.port, agent, { method: 'POST', path: v.path, headers, body: JSON.stringify(bodies[(w + 1) % CONCURRENT]) });
      expect(other.status, describeResponse(other)).toBe(422);
      expect(contractError(other.text).code).toBe('idempotency_key_reused');
      console.log(`${v.name}, different bodies, ${arrival}: ${summary}`);
    }
    expect(internalErrors).toEqual([]);
  });
});
