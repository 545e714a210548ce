import { ENVIRONMENTS } from '../domain/environment.js';
import type { Repos, StoreDb } from '../store/db.js';
import { parseEventTypes } from '../store/json-columns.js';
import type { ListenerRow } from '../store/repos/listeners.js';

/**
 * A reset empties the data but not what runs beside it: a `svc webhook listen` still holds its stream,
 * and an app started with `WEBHOOK_SECRET=$(svc webhook listen --print-secret)` still holds the
 * secret. Dropping the registration detached that listen silently (it stayed "Ready" and got nothing)
 * and rotated the secret under the app (issue 38). So the default partner's registrations, whose
 * partner the reset recreates with the same id, are read before the tables are emptied and written
 * back in the reset's own transaction. Other partners' are gone with their partners and keys.
 */
export async function listenersToKeep(db: StoreDb, partnerId: string): Promise<ListenerRow[]> {
  const rows = await Promise.all(ENVIRONMENTS.map((environment) => db.listeners.findListener(partnerId, environment)));
  return rows.filter((row) => row !== undefined);
}

/** Writes `rows` back after the defaults are recreated: the same secret, target, filter and state. */
export async function restoreListeners(tx: Repos, rows: readonly ListenerRow[], now: number): Promise<void> {
  for (const row of rows) {
    await tx.listeners.saveListener(
      {
        partnerId: row.partner_id,
        environment: row.environment,
        secret: row.secret,
        events: parseEventTypes(row.events),
        forwardTo: row.forward_to,
        active: row.active === 1,
      },
      now,
    );
  }
}
