import type { Insertable, Selectable } from 'kysely';
import { param, prepared } from '../query.js';
import type { EventsTable } from '../schema.js';
import type { Store } from '../sqlite/store.js';

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

export function insertEvent(store: Store, row: Omit<Insertable<EventsTable>, 'seq'>): void {
  insert.run(store, { ...row });
}

export function findEvent(store: Store, id: string): EventRow | undefined {
  return byId.get(store, { id });
}

/** The events of `ids` that exist, in no particular order (the attempts a claim started: webhooks/event-loader.ts). */
export function findEvents(store: Store, ids: readonly string[]): EventRow[] {
  return ids.flatMap((id) => byId.get(store, { id }) ?? []);
}

export function eventsOfInvoice(store: Store, invoiceId: string): EventRow[] {
  return byInvoice.all(store, { invoice_id: invoiceId });
}
