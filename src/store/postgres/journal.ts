import { type RawBuilder, sql } from 'kysely';
import type { JournalEntry } from '../../contract/testing-types.js';
import { notifyExpression, type Sender } from './notify.js';
import { holdsNul } from '../repos/lookups.js';
import type { PgHandle } from './handle.js';
import type { JournalRowFilter, JournalTable } from '../journal-table.js';

/**
 * The shared request journal's statements (migrations/0005-request-journal.ts; CONTRACT §9, §12).
 * Rows hold entries as presented (masked); the server's side is server/journal/shared-journal.ts.
 */

/** The journal table on `db`, notifying as `sender` (notify.ts). */
export function postgresJournalTable(db: PgHandle, sender: Sender): JournalTable {
  return {
    insert: (replica, entries) => insertJournalEntries(db, sender, replica, entries),
    trim: (capacity, from) => trimJournal(db, capacity, from),
    entriesOf: (replica, from, to) => journalEntriesOf(db, replica, from, to),
    page: (capacity, filter, limit, startingAfter) => journalPage(db, capacity, filter, limit, startingAfter),
    entry: (capacity, id) => journalEntry(db, capacity, id),
    clear: () => clearJournal(db),
  };
}

/**
 * Writes `entries` (in order) as `replica`'s and in the same statement tells the other replicas which
 * rows they were (`journal` with the writer and the range of `seq`, signed as `sender`: notify.ts): one
 * round trip per batch. Returns the range of `seq` they got. One writer per replica runs at a time, so
 * the range holds only these rows of `replica`.
 *
 * The batch travels as one JSON array parameter (the entries, stored as they are) beside one array
 * per filtered column, not as seven parameters a row: the statement's text is the same for every
 * batch, the process builds a handful of parameters instead of thousands, and PostgreSQL parses the
 * entries once (reading the columns out of each entry with `->>` parsed every entry five more times:
 * twice the server's CPU a row). Issue 27: the journal had halved reads' speed on PostgreSQL.
 */
export async function insertJournalEntries(
  db: PgHandle,
  sender: Sender,
  replica: string,
  entries: readonly JournalEntry[],
): Promise<{ from: number; to: number } | null> {
  if (entries.length === 0) return null;
  const announce = notifyExpression(sender, 'journal', sql`json_build_object('r', ${replica}::text, 'from', min(seq), 'to', max(seq))`);
  // Both sides WITH ORDINALITY, joined and ordered by it: rows are inserted, and numbered, in the array's order.
  const { rows } = await sql<{ from: string | number | null; to: string | number | null }>`
    WITH written AS (
      INSERT INTO request_journal (replica, id, method, path, status, from_dashboard, entry)
      SELECT ${replica}::text, c.id, c.method, c.path, c.status, c.from_dashboard, e.entry
      FROM json_array_elements(${JSON.stringify(entries)}::json) WITH ORDINALITY AS e(entry, n)
      JOIN unnest(
        ${entries.map((e) => e.id)}::text[], ${entries.map((e) => e.method)}::text[], ${entries.map((e) => e.path)}::text[],
        ${entries.map((e) => e.status)}::integer[], ${entries.map((e) => e.fromDashboard)}::boolean[]
      ) WITH ORDINALITY AS c(id, method, path, status, from_dashboard, n) ON c.n = e.n
      ORDER BY e.n
      RETURNING seq
    )
    SELECT min(seq) AS "from", max(seq) AS "to", ${announce} AS told FROM written`.execute(db);
  const range = rows[0];
  return range && range.from !== null && range.to !== null ? { from: Number(range.from), to: Number(range.to) } : null;
}

/**
 * Keeps the newest `capacity` rows, whoever wrote them: one statement per batch, not per entry.
 * Deletes only rows from `from` on (where this replica's previous trim stopped; 0 for all) and returns
 * where this one stopped, or null when there was nothing to trim. Without the bound, each trim walked
 * the index over every row deleted before and not yet vacuumed: at a few thousand requests a second,
 * the trim cost the server five times the INSERT it followed.
 */
export async function trimJournal(db: PgHandle, capacity: number, from: number): Promise<number | null> {
  // The data-modifying CTE runs whether or not the SELECT reads it. Fewer rows than capacity: no cutoff, nothing goes.
  const { rows } = await sql<{ seq: string | number }>`
    WITH cutoff AS (SELECT seq FROM request_journal ORDER BY seq DESC OFFSET ${capacity - 1} LIMIT 1),
    gone AS (DELETE FROM request_journal WHERE seq >= ${from} AND seq < (SELECT seq FROM cutoff))
    SELECT seq FROM cutoff`.execute(db);
  return rows[0] ? Number(rows[0].seq) : null;
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
    if (holdsNul(startingAfter)) return null;
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
  if (holdsNul(id)) return null;
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
