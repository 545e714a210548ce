import type { EventRow } from '../store/repos/events.js';

/**
 * The events that attempts started in one turn ask for, read in one statement. A claim starts its
 * deliveries one after another in the same turn, each reading its event first: on PostgreSQL that
 * was a round trip per delivery, one of a delivery's ~8 (issue 27). `load` keeps the ids asked for
 * until the turn's microtasks run, then reads them together; each caller gets its own row (or
 * undefined: gone with a reset), or the read's error.
 */
export class EventLoader {
  private waiting = new Map<string, Array<{ resolve: (row: EventRow | undefined) => void; reject: (error: unknown) => void }>>();
  private scheduled = false;

  constructor(private readonly read: (ids: readonly string[]) => Promise<EventRow[]>) {}

  load(id: string): Promise<EventRow | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(id, [{ resolve, reject }]);
      if (this.scheduled) return;
      this.scheduled = true;
      queueMicrotask(() => this.readWaiting());
    });
  }

  private readWaiting(): void {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = new Map();
    this.read([...batch.keys()]).then(
      (rows) => {
        const byId = new Map(rows.map((row) => [row.id, row]));
        for (const [id, waiters] of batch) for (const w of waiters) w.resolve(byId.get(id));
      },
      (error: unknown) => {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
      },
    );
  }
}
