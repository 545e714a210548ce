import { randomUUID } from 'node:crypto';
import type { Environment } from '../../domain/environment.js';
import type { PostgresStoreDb } from './engine.js';
import {
  dropReplicaStreams,
  dropStream,
  expectResult,
  forgetResults,
  holdStreams,
  postResult,
  streamElsewhere,
  sweepExpiredStreams,
  sweepOldResults,
  takeResults,
} from './listener-streams.js';
import type { ListenerScope } from '../repos/deliveries.js';
import type { ListenerPresence, PresenceHooks } from '../listener-presence.js';

/** Results waiting longer than this were a dead replica's (an attempt waits 70 s at most by default). */
const RESULT_ROWS_KEPT_MS = 10 * 60_000;

/**
 * Listener streams across PostgreSQL replicas (CONTRACT §12, issue 28). Each replica records the
 * listeners it holds streams of in `listener_streams` with a lease (wall-clock ms, as the delivery
 * claims' leases) that a timer renews; a replica that dies stops renewing, and the first sweep of a
 * live one after the lease removes its rows and starts those listeners' reconnect windows. Claims
 * read the table (ListenerScope): a listener's deliveries go out only where its stream is.
 *
 * A result comes back through the balancer to any replica: one that does not wait for it writes it
 * into the waiting replica's `listener_results` row and NOTIFYs `listeners`; the waiter takes it.
 * After the change channel was lost (notifications are not queued) the waiter looks for all of its
 * own at once.
 */
export class SharedListenerPresence implements ListenerPresence {
  /** This process's name in both tables: fresh per start (a restarted replica is another holder). */
  private readonly replica = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: () => void = () => {};
  private hooks: PresenceHooks | null = null;
  private beating = false;
  private closed = false;

  constructor(
    private readonly db: PostgresStoreDb,
    /** A stream row's lease, wall-clock ms (the dispatcher's lease: taken over within 30 s). */
    private readonly leaseMs: number,
  ) {}

  start(hooks: PresenceHooks): void {
    this.hooks = hooks;
    this.timer = setInterval(() => void this.beat(), Math.min(5000, this.leaseMs / 5));
    this.timer.unref();
    this.unsubscribe = this.db.changes.subscribe('listeners', (change) => {
      const requestId = change.data.requestId;
      const ids = change.reconnected ? hooks.waiting() : typeof requestId === 'string' ? hooks.waiting().filter((id) => id === requestId) : [];
      this.take(ids);
    });
  }

  async held(partnerId: string, environment: Environment): Promise<void> {
    await holdStreams(this.db.handle, this.replica, [{ partnerId, environment }], Date.now() + this.leaseMs);
  }

  async released(partnerId: string, environment: Environment): Promise<void> {
    await dropStream(this.db.handle, this.replica, { partnerId, environment });
  }

  elsewhere(partnerId: string, environment: Environment): Promise<boolean> {
    return streamElsewhere(this.db.handle, this.replica, { partnerId, environment });
  }

  scope(here: string[]): ListenerScope {
    return { replica: this.replica, here, wallNow: Date.now() };
  }

  async expect(requestId: string, partnerId: string, environment: Environment): Promise<void> {
    await expectResult(this.db.handle, requestId, { partnerId, environment }, this.replica, Date.now());
  }

  forget(requestId: string): void {
    if (this.closed) return;
    forgetResults(this.db.handle, [requestId]).catch((error: unknown) => this.hooks?.onError(error));
  }

  async relay(requestId: string, result: string, from: { partnerId: string; environment: Environment }): Promise<boolean> {
    if (!(await postResult(this.db.handle, requestId, from, result))) return false;
    // After the write committed (outside a transaction: at once), so the waiter finds the row.
    await this.db.publish('listeners', { requestId });
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe();
    await dropReplicaStreams(this.db.handle, this.replica);
  }

  /** Hands the results posted elsewhere for `ids` to the hub. */
  private take(ids: string[]): void {
    const hooks = this.hooks;
    if (!ids.length || !hooks || this.closed) return;
    takeResults(this.db.handle, this.replica, ids)
      .then((rows) => {
        for (const row of rows) hooks.result(row.requestId, row.result);
      })
      .catch((error: unknown) => hooks.onError(error));
  }

  /**
   * Renews this replica's rows (re-creating them if a sweep removed them while this replica was cut
   * off from the database), removes dead replicas' rows and old result rows. Never rejects.
   */
  private async beat(): Promise<void> {
    const hooks = this.hooks;
    if (this.beating || this.closed || !hooks) return;
    this.beating = true;
    try {
      const wallNow = Date.now();
      const keys = hooks.here().map((key) => {
        const [partnerId = '', environment] = key.split(':');
        return { partnerId, environment: environment === 'live' ? ('live' as const) : ('test' as const) };
      });
      await holdStreams(this.db.handle, this.replica, keys, wallNow + this.leaseMs);
      for (const lost of await sweepExpiredStreams(this.db.handle, wallNow, hooks.now())) hooks.lost(lost.partnerId, lost.environment);
      await sweepOldResults(this.db.handle, wallNow - RESULT_ROWS_KEPT_MS);
    } catch (error) {
      if (!this.closed) hooks.onError(error);
    } finally {
      this.beating = false;
    }
  }
}
