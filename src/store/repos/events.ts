import type { Insertable, Selectable } from 'kysely';
import type { Runner } from '../engine.js';
import { param, prepared } from '../query.js';
import type { EventsTable } from '../schema.js';
import { holdsNul } from './lookups.js';

export type EventRow = Selectable<EventsTable>;

const insert = prepared((qb) =>
  qb.insertInto('events').values({
    id: param('id'),
    invoice_id: param('invoice_id'),
    sequence: param('sequence'),
    type: param('type'),
    environment: param('environment'),
    partner_id: param('partner_id'),
    merchant_id: param('merchant_id'),
    payload: param('payload'),
    created_at: param('created_at'),
  }),
);
const byId = prepared((qb) => qb.selectFrom('events').selectAll().where('id', '=', param('id')));
const byInvoice = prepared((qb) => qb.selectFrom('events').selectAll().where('invoice_id', '=', param('invoice_id')).orderBy('sequence'));

/** An event is inserted on the caller's transaction, with the change that causes it (the outbox, CONTRACT §4). */
export async function insertEvent(db: Runner, row: Omit<Insertable<EventsTable>, 'seq'>): Promise<void> {
  await db.run(insert, { ...row });
}

export async function findEvent(db: Runner, id: string): Promise<EventRow | undefined> {
  if (holdsNul(id)) return undefined;
  return db.get(byId, { id });
}

/** The events of `ids` that exist, in no particular order (the attempts a claim started: webhooks/event-loader.ts). */
export async function findEvents(db: Runner, ids: readonly string[]): Promise<EventRow[]> {
  if (db.own.batch) return db.own.batch.findEvents(ids);
  const rows: EventRow[] = [];
  for (const id of ids) {
    const row = await db.get(byId, { id });
    if (row) rows.push(row);
  }
  return rows;
}

export async function eventsOfInvoice(db: Runner, invoiceId: string): Promise<EventRow[]> {
  return db.all(byInvoice, { invoice_id: invoiceId });
}
