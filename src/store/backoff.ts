import { errorMessage } from '../domain/caught.js';

/**
 * How long background work waits before trying again after a database error (a lock held by another
 * program, a full disk): 50 ms, doubling up to 5 s, back to the start after a success.
 */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly firstMs = 50,
    private readonly maxMs = 5000,
  ) {}

  /** The next delay; each call counts one more failure. */
  next(): number {
    const delay = Math.min(this.maxMs, this.firstMs * 2 ** Math.min(this.failures, 16));
    this.failures += 1;
    return delay;
  }

  reset(): void {
    this.failures = 0;
  }
}

/**
 * Background work that failed on the database tries again after a backoff delay. While a retry is
 * pending, `waiting` is true and callers skip their work (the retry does it), so a locked database
 * yields one error event per delay rather than one per attempt.
 */
export class RetryLater {
  private readonly backoff = new Backoff();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Names the work in the reported error: `dispatcher: database is locked; trying again in 50 ms`. */
    private readonly label: string,
    private readonly retry: () => void,
    private readonly report: (error: Error) => void,
  ) {}

  get waiting(): boolean {
    return this.timer !== undefined;
  }

  /** Runs `work` unless a retry is pending; a throw is reported and retried. False when it did not succeed. */
  attempt(work: () => void): boolean {
    if (this.timer) return false;
    try {
      work();
      this.succeeded();
      return true;
    } catch (error) {
      this.failed(error);
      return false;
    }
  }

  /** `attempt` for asynchronous work: resolves false (never rejects) when it did not succeed. */
  async attemptAsync(work: () => Promise<void>): Promise<boolean> {
    if (this.timer) return false;
    try {
      await work();
      this.succeeded();
      return true;
    } catch (error) {
      this.failed(error);
      return false;
    }
  }

  failed(error: unknown): void {
    if (this.timer) return;
    const delay = this.backoff.next();
    this.report(new Error(`${this.label}: ${errorMessage(error)}; trying again in ${delay} ms`, { cause: error }));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.retry();
    }, delay);
    // The server keeps the process alive while it runs; a stopped one must not be held by this.
    this.timer.unref();
  }

  succeeded(): void {
    this.backoff.reset();
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
