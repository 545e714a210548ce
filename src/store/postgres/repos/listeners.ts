import type { Environment } from '../../../domain/environment.js';
import type { ListenerRow } from '../../repos/listeners.js';
import type { PgHandle } from './handle.js';

// PostgreSQL's listener registrations: the same functions as ../../repos/listeners.ts. One per
// partner and environment, by the unique constraint on (partner_id, environment).

const DUE = ['pending', 'retrying'] as const;

export async function findListener(db: PgHandle, partnerId: string, environment: Environment): Promise<ListenerRow | undefined> {
  return db.selectFrom('listeners').selectAll().where('partner_id', '=', partnerId).where('environment', '=', environment).executeTakeFirst();
}

export async function activeListeners(db: PgHandle): Promise<ListenerRow[]> {
  return db.selectFrom('listeners').selectAll().where('active', '=', 1).execute();
}

/** Registers or updates; the secret is only used when the row is new (it never changes after). */
export async function saveListener(
  db: PgHandle,
  row: { partnerId: string; environment: Environment; secret: string; events: string[] | null; forwardTo: string; active: boolean },
  now: number,
): Promise<ListenerRow> {
  const events = row.events ? JSON.stringify(row.events) : null;
  const active = row.active ? 1 : 0;
  return db
    .insertInto('listeners')
    .values({
      partner_id: row.partnerId,
      environment: row.environment,
      secret: row.secret,
      events,
      forward_to: row.forwardTo,
      active,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['partner_id', 'environment']).doUpdateSet({ events, forward_to: row.forwardTo, active, updated_at: now }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A listener came back: what it missed is due now rather than at its next retry time. */
export async function wakeListenerDeliveries(db: PgHandle, partnerId: string, environment: Environment, now: number): Promise<number> {
  const result = await db
    .updateTable('deliveries')
    .set({ next_attempt_at: now })
    .where('target', '=', 'listener')
    .where('partner_id', '=', partnerId)
    .where('environment', '=', environment)
    .where('status', 'in', DUE)
    .where('in_flight', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Marks when the emulator last saw the listener come or go: its reconnect window counts from there. */
export async function touchListener(db: PgHandle, partnerId: string, environment: Environment, now: number): Promise<void> {
  await db.updateTable('listeners').set({ updated_at: now }).where('partner_id', '=', partnerId).where('environment', '=', environment).execute();
}

/** A removed listener's deliveries still waiting for an attempt end `failed` now (see SQLite's). */
export async function endListenerDeliveries(db: PgHandle, partnerId: string, environment: Environment, now: number, reason: string): Promise<number> {
  const result = await db
    .updateTable('deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: reason, updated_at: now })
    .where('target', '=', 'listener')
    .where('partner_id', '=', partnerId)
    .where('environment', '=', environment)
    .where('status', 'in', DUE)
    .where('in_flight', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
