import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/contract/testing-types.js';
import { SharedJournal } from '../../src/server/journal/shared-journal.js';
import { openPostgresEngine } from '../helpers/pg-engine.js';
import { insertJournalEntries, journalPage, postgresJournalTable, trimJournal } from '../../src/store/postgres/journal.js';
import type { PgHandle } from '../../src/store/postgres/handle.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';

// The shared request journal's table on PostgreSQL (issue 28; made cheaper in issue 27): a batch
// goes in as one JSON array, in order, and trims start where the last one stopped.
const server: PostgresServer = await startPostgres();
const engine = await openPostgresEngine({ url: await server.createDatabase() });
const db: PgHandle = engine.db;
/** Who signs the notifications the inserts send (nobody listens here). */
const SENDER = { instance: 'instance', key: 'key' };
afterAll(() => engine.close());

const entry = (n: number, extra: Partial<JournalEntry> = {}): JournalEntry => ({
  id: `req_${n}_${randomUUID()}`,
  at: new Date(Date.UTC(2026, 10, 26, 12, 0, n)).toISOString(),
  method: n % 2 ? 'POST' : 'GET',
  path: `/v1/partner/invoices/${n}`,
  query: '',
  status: n % 3 ? 200 : null,
  durationMs: 1.5,
  principal: null,
  key: null,
  idempotencyKey: null,
  replayed: false,
  requestBody: n % 2 ? `{"n":${n},"note":"quote \\" and newline \\n and \u00e9"}` : null,
  responseBody: '{"ok":true}',
  truncated: false,
  fault: null,
  fromDashboard: n % 5 === 0,
  ...extra,
});

const rows = async () =>
  (
    await sql<{ seq: number; id: string; method: string; path: string; status: number | null; from_dashboard: boolean; entry: JournalEntry }>`
    SELECT seq, id, method, path, status, from_dashboard, entry FROM request_journal ORDER BY seq`.execute(db)
  ).rows;

describe('the request journal table', () => {
  it('stores a batch in order, each entry whole and its filtered columns taken from it', async () => {
    await sql`DELETE FROM request_journal`.execute(db);
    const batch = Array.from({ length: 12 }, (_, i) => entry(i + 1));
    const range = await insertJournalEntries(db, SENDER, 'replica-a', batch);
    const stored = await rows();
    expect(stored.map((r) => r.entry)).toEqual(batch);
    expect(range).toEqual({ from: stored[0]!.seq, to: stored.at(-1)!.seq });
    for (const [i, r] of stored.entries()) {
      const e = batch[i]!;
      expect([r.id, r.method, r.path, r.status, r.from_dashboard]).toEqual([e.id, e.method, e.path, e.status, e.fromDashboard]);
    }
    // The filters read those columns.
    const page = await journalPage(db, 100, { status: 200, fromDashboard: true, method: 'get' }, 50, undefined);
    expect(page?.data.map((e) => e.id)).toEqual(
      batch
        .filter((e) => e.status === 200 && e.fromDashboard && e.method === 'GET')
        .map((e) => e.id)
        .reverse(),
    );
    expect(await insertJournalEntries(db, SENDER, 'replica-a', [])).toBeNull();
  });

  it('a trim keeps the newest rows, deletes from where it is told, and a trim from 0 takes what lay below', async () => {
    await sql`DELETE FROM request_journal`.execute(db);
    await insertJournalEntries(
      db,
      SENDER,
      'replica-a',
      Array.from({ length: 30 }, (_, i) => entry(i)),
    );
    const seqs = (await rows()).map((r) => r.seq);
    const stoppedAt = await trimJournal(db, 10, 0);
    expect(stoppedAt).toBe(seqs[20]);
    expect((await rows()).map((r) => r.seq)).toEqual(seqs.slice(20));
    // A row numbered below where the last trim stopped (another replica's, committed late) ...
    await sql`INSERT INTO request_journal (seq, replica, id, method, path, status, from_dashboard, entry)
      OVERRIDING SYSTEM VALUE VALUES (${seqs[0]! - 1}, 'replica-b', 'late', 'GET', '/v1/x', 200, false, '{}'::json)`.execute(db);
    await insertJournalEntries(
      db,
      SENDER,
      'replica-a',
      Array.from({ length: 5 }, (_, i) => entry(100 + i)),
    );
    // ... stays through a trim that starts where the last stopped, which deletes only from there;
    const next = await trimJournal(db, 10, stoppedAt!);
    expect((await rows()).map((r) => r.id)).toContain('late');
    expect((await rows()).filter((r) => r.id !== 'late')).toHaveLength(10);
    // a full trim takes it.
    expect(await trimJournal(db, 10, 0)).toBe(next);
    expect((await rows()).map((r) => r.id)).not.toContain('late');
    expect(await rows()).toHaveLength(10);
    // Fewer rows than the capacity: nothing goes, and no cutoff.
    expect(await trimJournal(db, 50, 0)).toBeNull();
  });

  it('a replica writing many batches keeps the table near its capacity', async () => {
    await sql`DELETE FROM request_journal`.execute(db);
    const journal = new SharedJournal(postgresJournalTable(db, SENDER), { publish: async () => {} }, 20, (error) => {
      throw error;
    });
    let n = 0;
    for (let batch = 0; batch < 60; batch++) {
      for (let i = 0; i < 7; i++) journal.add({ ...entry(n++), at: Date.now() });
      // Reading waits for the writes before it: one batch of 7 at a time.
      await journal.page({ limit: 1 });
    }
    await journal.close();
    const count = (await rows()).length;
    // Between trims the table may hold a tenth of the capacity and one batch more; never the 420 written.
    expect(count).toBeGreaterThanOrEqual(20);
    expect(count).toBeLessThanOrEqual(20 + 2 + 7);
    expect((await journal.page({ limit: 100 }))?.data).toHaveLength(20);
  });
});
