import type { Selectable } from 'kysely';
import type { Environment } from '../../domain/environment.js';
import type { Runner } from '../engine.js';
import { DUE_DELIVERY, param, prepared } from '../query.js';
import type { ListenersTable } from '../schema.js';

export type ListenerRow = Selectable<ListenersTable>;

const byPartner = prepared((qb) =>
  qb.selectFrom('listeners').selectAll().where('partner_id', '=', param('partner_id')).where('environment', '=', param('environment')),
);
const active = prepared((qb) => qb.selectFrom('listeners').selectAll().where('active', '=', 1));
// One per partner and environment, by the unique constraint on (partner_id, environment).
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
    )
    .returningAll(),
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

export async function findListener(db: Runner, partnerId: string, environment: Environment): Promise<ListenerRow | undefined> {
  return db.get(byPartner, { partner_id: partnerId, environment });
}

export async function activeListeners(db: Runner): Promise<ListenerRow[]> {
  return db.all(active);
}

/** Registers or updates; the secret is only used when the row is new (it never changes after). */
export async function saveListener(
  db: Runner,
  row: { partnerId: string; environment: Environment; secret: string; events: string[] | null; forwardTo: string; active: boolean },
  now: number,
): Promise<ListenerRow> {
  const saved = await db.get(upsert, {
    partner_id: row.partnerId,
    environment: row.environment,
    secret: row.secret,
    events: row.events ? JSON.stringify(row.events) : null,
    forward_to: row.forwardTo,
    active: row.active ? 1 : 0,
    now,
  });
  if (!saved) throw new Error('svc bug: a listener upsert returned no row');
  return saved;
}

/** A listener came back: what it missed is due now rather than at its next retry time. */
export async function wakeListenerDeliveries(db: Runner, partnerId: string, environment: Environment, now: number): Promise<number> {
  return db.run(wakePending, { partner_id: partnerId, environment, now });
}

/** Marks when the emulator last saw the listener come or go: its reconnect window counts from there. */
export async function touchListener(db: Runner, partnerId: string, environment: Environment, now: number): Promise<void> {
  await db.run(touch, { partner_id: partnerId, environment, now });
}

/**
 * A removed listener's deliveries still waiting for an attempt end `failed` now: nobody will take
 * them, and retrying them for hours only fills the list with `listener_unavailable`. One in flight
 * ends at its result (the hub answers it as final).
 */
export async function endListenerDeliveries(db: Runner, partnerId: string, environment: Environment, now: number, reason: string): Promise<number> {
  return db.run(endPending, { partner_id: partnerId, environment, now, reason });
}
