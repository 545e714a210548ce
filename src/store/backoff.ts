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
    private readonly retry: () => void,
    private readonly report: (error: unknown, delayMs: number) => void,
  ) {}

  get waiting(): boolean {
    return this.timer !== undefined;
  }

  failed(error: unknown): void {
    if (this.timer) return;
    const delay = this.backoff.next();
    this.report(error, delay);
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
