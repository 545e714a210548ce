import type { Selectable } from 'kysely';
import type { Environment } from '../../domain/environment.js';
import { DUE_DELIVERY, param, prepared } from '../query.js';
import type { ListenersTable } from '../schema.js';
import type { Store } from '../sqlite/store.js';

export type ListenerRow = Selectable<ListenersTable>;

const byPartner = prepared((qb) =>
  qb.selectFrom('listeners').selectAll().where('partner_id', '=', param('partner_id')).where('environment', '=', param('environment')),
);
const active = prepared((qb) => qb.selectFrom('listeners').selectAll().where('active', '=', 1));
const upsert = prepared((qb) =>
  qb
    .insertInto('listeners')
    .values({
      partner_id: param('partner_id'),
      environment: param('environment'),
      secret: param('secret'),
      events: param('events'),
      forward_to: param('forward_to'),
      active: param('active'),
      created_at: param('now'),
      updated_at: param('now'),
    })
    .onConflict((oc) =>
      oc.columns(['partner_id', 'environment']).doUpdateSet({
        events: param('events'),
        forward_to: param('forward_to'),
        active: param('active'),
        updated_at: param('now'),
      }),
    ),
);
const wakePending = prepared((qb) =>
  qb
    .updateTable('deliveries')
    .set({ next_attempt_at: param('now') })
    .where('target', '=', 'listener')
    .where('partner_id', '=', param('partner_id'))
    .where('environment', '=', param('environment'))
    .where(DUE_DELIVERY),
);

const touch = prepared((qb) =>
  qb
    .updateTable('listeners')
    .set({ updated_at: param('now') })
    .where('partner_id', '=', param('partner_id'))
    .where('environment', '=', param('environment')),
);
const endPending = prepared((qb) =>
  qb
    .updateTable('deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: param('reason'), updated_at: param('now') })
    .where('target', '=', 'listener')
    .where('partner_id', '=', param('partner_id'))
    .where('environment', '=', param('environment'))
    .where(DUE_DELIVERY),
);

export function findListener(store: Store, partnerId: string, environment: Environment): ListenerRow | undefined {
  return byPartner.get(store, { partner_id: partnerId, environment });
}

export function activeListeners(store: Store): ListenerRow[] {
  return active.all(store);
}

/** Registers or updates; the secret is only used when the row is new (it never changes after). */
export function saveListener(
  store: Store,
  row: { partnerId: string; environment: Environment; secret: string; events: string[] | null; forwardTo: string; active: boolean },
  now: number,
): ListenerRow {
  upsert.run(store, {
    partner_id: row.partnerId,
    environment: row.environment,
    secret: row.secret,
    events: row.events ? JSON.stringify(row.events) : null,
    forward_to: row.forwardTo,
    active: row.active ? 1 : 0,
    now,
  });
  return findListener(store, row.partnerId, row.environment)!;
}

/** A listener came back: what it missed is due now rather than at its next retry time. */
export function wakeListenerDeliveries(store: Store, partnerId: string, environment: Environment, now: number): number {
  return wakePending.run(store, { partner_id: partnerId, environment, now }).changes;
}

/** Marks when the emulator last saw the listener come or go: its reconnect window counts from there. */
export function touchListener(store: Store, partnerId: string, environment: Environment, now: number): void {
  touch.run(store, { partner_id: partnerId, environment, now });
}

/**
 * A removed listener's deliveries still waiting for an attempt end `failed` now: nobody will take
 * them, and retrying them for hours only fills the list with `listener_unavailable`. One in flight
 * ends at its result (the hub answers it as final).
 */
export function endListenerDeliveries(store: Store, partnerId: string, environment: Environment, now: number, reason: string): number {
  return endPending.run(store, { partner_id: partnerId, environment, now, reason }).changes;
}
