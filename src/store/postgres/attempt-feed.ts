import { sql } from 'kysely';
import type { AttemptFeedRow } from '../kit.js';
import type { PgHandle } from './handle.js';

/**
 * The attempts of `deliveryIds` (another replica announced some of them: server/shared-views.ts),
 * in the order they were written (`delivery_attempts.id`). The caller keeps the numbers it was told.
 */
export async function attemptsOf(db: PgHandle, deliveryIds: readonly string[]): Promise<AttemptFeedRow[]> {
  if (deliveryIds.length === 0) return [];
  const { rows } = await sql<AttemptFeedRow>`
    SELECT a.delivery_id, a.number, a.trigger, a.url, a.started_at, a.response_status, a.error,
      d.partner_id, d.environment, d.invoice_id, d.event_id, d.event_type, d.target
    FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
    WHERE a.delivery_id = ANY(${[...deliveryIds]}::text[])
    ORDER BY a.id`.execute(db);
  return rows;
}
