import { type Insertable, sql } from 'kysely';
import type { EventRow } from '../../repos/events.js';
import type { EventsTable } from '../../schema.js';
import { deferWrite } from '../deferred-writes.js';
import { holdsNul, type PgHandle } from './handle.js';
import { insertOne } from './insert-one.js';

// PostgreSQL's events repository (the outbox): the same functions as ../../repos/events.ts. An event
// is inserted on the caller's transaction handle, with the change that causes it (CONTRACT §4).

/** Deferred (deferred-writes.ts): it goes with the transaction's next statement. */
export async function insertEvent(db: PgHandle, row: Omit<Insertable<EventsTable>, 'seq'>): Promise<void> {
  await deferWrite(db, insertOne('events', row), row.id);
}

export async function findEvent(db: PgHandle, id: string): Promise<EventRow | undefined> {
  if (holdsNul(id)) return undefined;
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The events of `ids` that exist, in no particular order: one statement for the attempts a claim
 * started (webhooks/event-loader.ts). `= any(array)`, not `in (…)`: one text whatever the count, so
 * the connection prepares it once (named-statements.ts).
 */
export async function findEvents(db: PgHandle, ids: readonly string[]): Promise<EventRow[]> {
  if (!ids.length) return [];
  return db
    .selectFrom('events')
    .selectAll()
    .where(sql<boolean>`id = any(${[...ids]}::text[])`)
    .execute();
}

export async function eventsOfInvoice(db: PgHandle, invoiceId: string): Promise<EventRow[]> {
  return db.selectFrom('events').selectAll().where('invoice_id', '=', invoiceId).orderBy('sequence').execute();
}
