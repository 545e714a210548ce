/**
 * At most `size` transactions hold a pooled connection at once, so that the pool always keeps a few
 * for reads and health: transactions blocked on a lock another session holds (each up to 5 s, then
 * 503 `database_busy`) must not take every connection, or reads and health queue behind them and a
 * balancer takes the replica out (CONTRACT §12). A transaction waits its turn at most `waitMs`,
 * then gives up as a lock wait would (`WritesBusy`, answered 503 `database_busy`).
 */
export class TransactionGate {
  private running = 0;
  private readonly queue: { go(): void; timer: NodeJS.Timeout }[] = [];

  constructor(
    private readonly size: number,
    private readonly waitMs: number,
  ) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await this.turn();
    else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.queue.shift();
      if (next) {
        clearTimeout(next.timer);
        next.go();
      } else this.running--;
    }
  }

  /** Waits for a running transaction to end (its slot passes to this one), or gives up. */
  private turn(): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry = {
        go: resolve,
        timer: setTimeout(() => {
          this.queue.splice(this.queue.indexOf(entry), 1);
          reject(new WritesBusy(this.waitMs));
        }, this.waitMs),
      };
      this.queue.push(entry);
    });
  }
}

/** Every connection for writes was busy past the wait: nothing was changed (503 `database_busy`). */
export class WritesBusy extends Error {
  constructor(waitMs: number) {
    super(`every database connection for writes stayed busy for ${waitMs / 1000} s`);
    this.name = 'WritesBusy';
  }
}
