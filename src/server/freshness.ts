/**
 * Read your writes, across replicas (CONTRACT §12): a change one replica acknowledged (the clock,
 * faults, chaos, keys, a reset or a restore) is in force for the very next request to any replica.
 * What a replica keeps in memory is a cache of the store (ARCHITECTURE habit 13); before it serves
 * a request, or claims work, it reads the sandbox's version (store/kit.ts `sandboxVersion`) and, when
 * another replica changed it since, reloads its caches first. A notification only wakes sleepers:
 * it may arrive after the next request, and a replica cut off from the channel hears nothing.
 *
 * One read serves every caller that arrived before it was sent; a caller arriving while one is on
 * its way waits for the next (the one on its way may have been sent before the change committed).
 */
export class Freshness {
  /** The version the caches were loaded at; undefined until the first read. */
  private seen: string | null | undefined;
  private running: Promise<void> | null = null;
  private waiting: Promise<void> | null = null;

  constructor(
    private readonly version: () => Promise<string | null>,
    /** Reloads every cache (the clock, faults, chaos, keys). */
    private readonly reload: () => Promise<void>,
  ) {}

  /** The caches were just loaded (at start): the version they hold is the one stored now. */
  async loaded(): Promise<void> {
    this.seen = await this.version();
  }

  /** Resolves once this replica's caches hold every change acknowledged before the call. */
  sync(): Promise<void> {
    if (!this.running) return this.start();
    this.waiting ??= this.running.then(
      () => this.next(),
      () => this.next(),
    );
    return this.waiting;
  }

  private next(): Promise<void> {
    this.waiting = null;
    return this.start();
  }

  private start(): Promise<void> {
    const run = this.look().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private async look(): Promise<void> {
    const version = await this.version();
    if (version === this.seen) return;
    await this.reload();
    // Only once reloaded: a reload that failed is done again by the next request.
    this.seen = version;
  }
}
