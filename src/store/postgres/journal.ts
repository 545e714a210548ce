import { type RawBuilder, sql } from 'kysely';
import type { JournalEntry } from '../../contract/testing-types.js';
import { notifyExpression } from './notify.js';
import type { PgHandle } from './repos/handle.js';

/**
 * The shared request journal's statements (migrations/0005-request-journal.ts; CONTRACT §9, §12).
 * Rows hold entries as presented (masked); the server's side is server/journal/shared-journal.ts.
 */

/** What `GET /__emulator/requests` filters by; the same meaning as the ring's matcher (journal.ts). */
export interface JournalRowFilter {
  method?: string | undefined;
  path?: string | undefined;
  status?: number | undefined;
  invoiceId?: string | undefined;
  fromDashboard?: boolean | undefined;
}

/** Rows per INSERT: 7 parameters each, far below PostgreSQL's 65,535 per statement. */
const ROWS_PER_INSERT = 500;

/**
 * Writes `entries` (in order) as `replica`'s, a few hundred rows per statement, and in the same
 * statement tells the other replicas which rows they were (`journal` with the writer and the range
 * of `seq`, as `instance`: notify.ts): one round trip per batch. Returns the range of `seq` they got.
 * One writer per replica runs at a time, so the range holds only these rows of `replica`.
 */
export async function insertJournalEntries(
  db: PgHandle,
  instance: string,
  replica: string,
  entries: readonly JournalEntry[],
): Promise<{ from: number; to: number } | null> {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < entries.length; i += ROWS_PER_INSERT) {
    const rows = entries
      .slice(i, i + ROWS_PER_INSERT)
      .map((e) => sql`(${replica}, ${e.id}, ${e.method}, ${e.path}, ${e.status}, ${e.fromDashboard}, ${JSON.stringify(e)}::json)`);
    const announce = notifyExpression(instance, 'journal', sql`json_build_object('r', ${replica}::text, 'from', min(seq), 'to', max(seq))`);
    const inserted = await sql<{ from: number; to: number }>`
      WITH written AS (
        INSERT INTO request_journal (replica, id, method, path, status, from_dashboard, entry)
        VALUES ${sql.join(rows)} RETURNING seq
      )
      SELECT min(seq) AS "from", max(seq) AS "to", ${announce} AS told FROM written`.execute(db);
    const range = inserted.rows[0];
    if (range && range.from !== null) {
      from = Math.min(from, Number(range.from));
      to = Math.max(to, Number(range.to));
    }
  }
  return Number.isFinite(from) ? { from, to } : null;
}

/** Keeps the newest `capacity` rows, whoever wrote them: one statement per batch, not per entry. */
export async function trimJournal(db: PgHandle, capacity: number): Promise<void> {
  // Fewer rows than capacity: the subquery is NULL and nothing goes.
  await sql`DELETE FROM request_journal
    WHERE seq < (SELECT seq FROM request_journal ORDER BY seq DESC OFFSET ${capacity - 1} LIMIT 1)`.execute(db);
}

/** The entries `replica` wrote with `seq` in from..to, in write order (what a notification announced). */
export async function journalEntriesOf(db: PgHandle, replica: string, from: number, to: number): Promise<JournalEntry[]> {
  const { rows } = await sql<{ entry: JournalEntry }>`
    SELECT entry FROM request_journal WHERE replica = ${replica} AND seq BETWEEN ${from} AND ${to} ORDER BY seq`.execute(db);
  return rows.map((r) => r.entry);
}

/**
 * A page of §3, newest first: `limit` entries after the entry `startingAfter`; null when that entry
 * is not one the filter keeps (trimmed, cleared, filtered out), as the ring answers.
 */
export async function journalPage(
  db: PgHandle,
  capacity: number,
  filter: JournalRowFilter,
  limit: number,
  startingAfter: string | undefined,
): Promise<{ data: JournalEntry[]; hasMore: boolean } | null> {
  const where = [newest(capacity), ...conditions(filter)];
  if (startingAfter !== undefined) {
    const { rows } = await sql<{ seq: number }>`
      SELECT seq FROM request_journal WHERE id = ${startingAfter} AND ${sql.join(where, sql` AND `)} ORDER BY seq DESC LIMIT 1`.execute(db);
    if (!rows[0]) return null;
    where.push(sql`seq < ${rows[0].seq}`);
  }
  const { rows } = await sql<{ entry: JournalEntry }>`
    SELECT entry FROM request_journal WHERE ${sql.join(where, sql` AND `)} ORDER BY seq DESC LIMIT ${limit + 1}`.execute(db);
  return { data: rows.slice(0, limit).map((r) => r.entry), hasMore: rows.length > limit };
}

/** The newest entry with this Request-Id among the newest `capacity`, or null. */
export async function journalEntry(db: PgHandle, capacity: number, id: string): Promise<JournalEntry | null> {
  const { rows } = await sql<{ entry: JournalEntry }>`
    SELECT entry FROM request_journal WHERE id = ${id} AND ${newest(capacity)} ORDER BY seq DESC LIMIT 1`.execute(db);
  return rows[0]?.entry ?? null;
}

/** Empties the journal for every replica; returns how many entries it held. */
export async function clearJournal(db: PgHandle): Promise<number> {
  const result = await sql`DELETE FROM request_journal`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * Only the newest `capacity` rows (capacity ≥ 1). Each replica trims after each of its batches, so
 * between one replica's INSERT and its trim the table holds a batch more: readers never see it.
 */
function newest(capacity: number): RawBuilder<unknown> {
  return sql`seq >= coalesce((SELECT seq FROM request_journal ORDER BY seq DESC OFFSET ${capacity - 1} LIMIT 1), 0)`;
}

function conditions(filter: JournalRowFilter): RawBuilder<unknown>[] {
  const where: RawBuilder<unknown>[] = [];
  if (filter.fromDashboard !== undefined) where.push(sql`from_dashboard = ${filter.fromDashboard}`);
  if (filter.method !== undefined) where.push(sql`method = ${filter.method.toUpperCase()}`);
  // starts_with and strpos, not LIKE: a `%` or `_` in what the user typed means itself.
  if (filter.path !== undefined) where.push(sql`starts_with(path, ${filter.path})`);
  if (filter.status !== undefined) where.push(sql`status = ${filter.status}`);
  if (filter.invoiceId !== undefined) where.push(sql`(strpos(path, ${filter.invoiceId}) > 0 OR strpos(entry->>'responseBody', ${filter.invoiceId}) > 0)`);
  return where;
}
