import type { FaultMatch } from '../../contract/testing-types.js';
import type { StoreDb } from '../../store/db.js';
import { WriteBehindMeta } from '../../store/shared-value.js';
import { type ActiveFault, FaultTable, split } from './table.js';

/** Where the faults in force live on a shared database (meta, JSON): one list for every replica. */
const META_KEY = 'api_faults';

type StoredFault = Omit<ActiveFault, 'segments'>;

const isStoredFaults = (value: unknown): value is StoredFault[] =>
  Array.isArray(value) && value.every((f) => typeof f === 'object' && f !== null && typeof f.id === 'string' && typeof f.match === 'object');

/**
 * The fault table of a replica on PostgreSQL (CONTRACT §12: faults are shared). Memory stays the
 * cache every request reads (matching costs what it does on SQLite); the list itself is in the
 * store, and a replica reloads it when another publishes `faults`. add and clear stay synchronous
 * (the in-process API's promise): the change is written behind (src/store/shared-value.ts). A fault with `times` is used up in the store, one
 * use per request under a row lock, so N uses hold across replicas; an unlimited one never writes.
 */
export class SharedFaultTable extends FaultTable {
  private readonly stored: WriteBehindMeta<StoredFault[]>;

  constructor(
    private readonly db: StoreDb,
    now: () => number,
    newId: () => string,
    onError: (error: unknown) => void,
  ) {
    super(now, newId);
    this.stored = new WriteBehindMeta({
      db,
      key: META_KEY,
      topic: 'faults',
      guard: isStoredFaults,
      empty: () => [],
      // What is stored now, other replicas' changes included, is this one's list too.
      cache: (list) => {
        this.faults = list.map((f) => ({ ...f, segments: f.match.path === undefined ? null : split(f.match.path) }));
      },
      onError,
    });
  }

  /** Loads the stored list; in line with this replica's own writes (a reload never overtakes one). */
  reload(): Promise<void> {
    return this.stored.reload();
  }

  override add(spec: Parameters<FaultTable['add']>[0]): ActiveFault {
    const fault = super.add(spec);
    this.stored.write((list) => [...list, stored(fault)]);
    return fault;
  }

  override clear(id?: string): number {
    const count = super.clear(id);
    this.stored.write((list) => (id === undefined ? [] : list.filter((f) => f.id !== id)));
    return count;
  }

  override settled(): Promise<void> {
    return this.stored.settled();
  }

  override fire(fault: ActiveFault): boolean | Promise<boolean> {
    if (fault.remaining === null) return super.fire(fault);
    // After this replica's writes still being stored: a fault added in-process a moment ago is not
    // in the store yet, and its first use would find nothing to use (and drop it).
    return this.stored
      .after(() => this.useOnce(fault.id))
      .then((used) => {
        if (used === null) {
          super.clear(fault.id);
          return false;
        }
        // The request matched `fault`; the list may have been cached anew since (the add's own write
        // caches what it stored): the counts the store holds go to whichever object lists it now.
        for (const f of [fault, ...this.faults.filter((c) => c.id === fault.id)]) {
          f.fired = used.fired;
          f.remaining = used.remaining;
        }
        if (used.remaining === 0) super.clear(fault.id);
        return true;
      });
  }

  /** One use of a counted fault, in the store: its counts after it, or null when none was left. */
  private async useOnce(id: string): Promise<{ remaining: number; fired: number } | null> {
    return this.db.transaction(async (tx) => {
      await tx.meta.lockMeta(META_KEY);
      const list = (await tx.meta.getMeta(META_KEY, isStoredFaults)) ?? [];
      const found = list.find((f) => f.id === id);
      if (!found || found.remaining === 0) return null;
      const left = found.remaining === null ? null : found.remaining - 1;
      const next = left === 0 ? list.filter((f) => f.id !== id) : list.map((f) => (f.id === id ? { ...f, remaining: left, fired: f.fired + 1 } : f));
      await tx.meta.setMeta(META_KEY, next);
      await tx.publish('faults');
      return { remaining: left ?? 0, fired: found.fired + 1 };
    });
  }
}

function stored(f: ActiveFault): StoredFault {
  const { segments: _segments, ...rest } = f;
  return { ...rest, match: { ...f.match } satisfies FaultMatch };
}
