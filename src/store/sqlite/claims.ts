import type BetterSqlite3 from 'better-sqlite3';
import type { EngineStatements } from '../engine.js';
import { RECEIVER_SQL_SQLITE, receiverOf } from '../../domain/receiver.js';
import { LEASED_DELIVERY, param, prepared } from '../query.js';
import type { DeliveryRow } from '../repos/deliveries.js';
import type { Store } from './store.js';

// SQLite's own statements (../engine.ts EngineStatements): the claims of due deliveries, and no lock
// for meta (one writer at a time already). One process holds every claim (CONTRACT §8): no listener
// scope, and the caller's counts are every receiver's attempts in flight.

/** A delivery's receiver (`receiverOf`: its scheme, host and port), as SQL on its `url`. */
const RECEIVER = RECEIVER_SQL_SQLITE;

/**
 * Partners take turns among the rows chosen (`turn`): each partner's oldest first, then each one's
 * second…, so that one tenant's backlog does not hold another's deliveries back (issue 40).
 */
const CLAIM_SQL = `
  WITH busy AS (
    SELECT key AS receiver, value AS n FROM json_each(@busy)
  ), candidates AS (
    SELECT id, ${RECEIVER} AS receiver, partner_id, next_attempt_at, seq FROM deliveries INDEXED BY deliveries_due
    WHERE status IN ('pending', 'retrying') AND in_flight = 0 AND next_attempt_at <= @now
      AND ${RECEIVER} NOT IN (SELECT value FROM json_each(@saturated))
    ORDER BY next_attempt_at LIMIT @scan
  ), due AS (
    SELECT id, receiver, partner_id, next_attempt_at, seq, ROW_NUMBER() OVER (PARTITION BY receiver ORDER BY next_attempt_at, seq) AS rn
    FROM candidates
  ), chosen AS (
    SELECT due.id, due.next_attempt_at, ROW_NUMBER() OVER (PARTITION BY due.partner_id ORDER BY due.next_attempt_at, due.seq) AS turn
    FROM due LEFT JOIN busy ON busy.receiver = due.receiver
    WHERE due.rn + COALESCE(busy.n, 0) <= @perUrl
  )
  UPDATE deliveries SET in_flight = 1, lease_token = @token, lease_until = @until
  WHERE id IN (SELECT id FROM chosen ORDER BY turn, next_attempt_at LIMIT @limit)
  RETURNING *`;

/**
 * The claim for one receiver (a slot of it was freed): its oldest few due rows, walked in due order
 * (up to `now`: a dead receiver's retries, due later, are not walked); partners take turns among
 * them as in the general claim, so another tenant's deliveries wait behind at most `scan` of one
 * tenant's backlog.
 */
const CLAIM_FOR_RECEIVER_SQL = `
  WITH due AS (
    SELECT id, partner_id, next_attempt_at, seq FROM deliveries INDEXED BY deliveries_due
    WHERE status IN ('pending', 'retrying') AND in_flight = 0 AND next_attempt_at <= @now AND ${RECEIVER} = @receiver
    ORDER BY next_attempt_at LIMIT @scan
  ), chosen AS (
    SELECT id, next_attempt_at, ROW_NUMBER() OVER (PARTITION BY partner_id ORDER BY next_attempt_at, seq) AS turn FROM due
  )
  UPDATE deliveries SET in_flight = 1, lease_token = @token, lease_until = @until
  WHERE id IN (SELECT id FROM chosen ORDER BY turn, next_attempt_at LIMIT @limit)
  RETURNING *`;

const releaseExpired = prepared((qb) =>
  qb
    .updateTable('deliveries')
    .set({ in_flight: 0, lease_token: null, lease_until: null })
    .where(LEASED_DELIVERY)
    .where((eb) => eb.or([eb('lease_until', '<=', param('now')), eb('lease_until', '>', param('latest'))])),
);
const renew = prepared((qb) =>
  qb
    .updateTable('deliveries')
    .set({ lease_until: param('until') })
    .where(LEASED_DELIVERY)
    .where('lease_token', 'like', param('pattern')),
);

type ClaimArgs = { now: number; limit: number; perUrl: number; scan: number; busy: string; saturated: string; token: string | null; until: number | null };
type ReceiverArgs = { receiver: string; now: number; limit: number; scan: number; token: string | null; until: number | null };

export function sqliteStatements(store: Store): EngineStatements {
  // A window function and CTEs are beyond what the query builder expresses cleanly: plain SQL,
  // prepared once. `RETURNING *` of the deliveries table: its rows are DeliveryRow.
  let claim: BetterSqlite3.Statement<[ClaimArgs], DeliveryRow> | undefined;
  let claimForReceiver: BetterSqlite3.Statement<[ReceiverArgs], DeliveryRow> | undefined;
  return {
    /**
     * Receivers already at their cap are left out of the candidates, and only the oldest few times
     * `limit` candidates are ranked: ranking every due row on every claim made a 10,000-delivery
     * burst O(n²). Whatever is left out is still due, and the next claim takes it.
     */
    claimDue: async (now, limit, perUrl, busy, lease) => {
      claim ??= store.sqlite.prepare<[ClaimArgs], DeliveryRow>(CLAIM_SQL);
      const saturated = [...busy].filter(([, n]) => n >= perUrl).map(([receiver]) => receiver);
      return claim.all({
        now,
        limit,
        perUrl,
        scan: Math.min(1024, Math.max(64, limit * 4)),
        busy: JSON.stringify(Object.fromEntries(busy)),
        saturated: JSON.stringify(saturated),
        token: lease?.token ?? null,
        until: lease ? Date.now() + lease.ms : null,
      });
    },
    /** One process holds every claim: the caller's `limit` already counts the receiver's. */
    claimDueForUrl: async (url, now, limit, lease) => {
      claimForReceiver ??= store.sqlite.prepare<[ReceiverArgs], DeliveryRow>(CLAIM_FOR_RECEIVER_SQL);
      return claimForReceiver.all({
        receiver: receiverOf(url),
        now,
        limit,
        scan: Math.min(1024, Math.max(64, limit * 4)),
        token: lease?.token ?? null,
        until: lease ? Date.now() + lease.ms : null,
      });
    },
    lockMeta: async () => {},
    // The store's clock is this machine's: the one process that owns the database (CONTRACT §8).
    // Its claims carry no lease (it releases every claim at start); these serve the store alone.
    releaseExpiredLeases: async (leaseMs) => {
      const now = Date.now();
      return releaseExpired.preparedOn(store.sqlite).run(...releaseExpired.forSqlite.bind({ now, latest: now + leaseMs })).changes;
    },
    renewLeases: async (owner, leaseMs) =>
      renew.preparedOn(store.sqlite).run(...renew.forSqlite.bind({ pattern: `${owner}.%`, until: Date.now() + leaseMs })).changes,
  };
}
