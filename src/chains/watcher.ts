import { errorMessage } from '../domain/caught.js';
import type { LocalChain } from './local-chain.js';

/** What a watcher does with new blocks; the server's (src/server/chains/). */
export interface WatcherHooks {
  /**
   * Blocks `from` to `to` (inclusive) are new; `head` is the chain's latest. Resolves once they are
   * processed and the position is stored: the watcher moves on only then, so a failure is retried
   * from the same block and a restart resumes there.
   */
  onBlocks(from: number, to: number, head: number): Promise<void>;
  /** The chain's head went below the position (a revert or reset made through the RPC): start again there. */
  onRewind(head: number): Promise<void>;
  onError(error: Error): void;
}

/** Blocks handed to `onBlocks` at once, at most: a long catch-up is many short transactions. */
const MAX_RANGE = 500;
const RETRY_MS = 1000;

/**
 * One chain's watcher (CONTRACT §14): on every new head (the node's `newHeads`, ./local-chain.ts) it
 * hands the blocks after its position to its hooks, one range at a time and in order. `sync()`
 * catches up on demand and resolves once everything mined before the call is processed: what a
 * mine or a clock advance awaits before it answers.
 */
export class ChainWatcher {
  private tail: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;
  private paused = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly chain: LocalChain,
    /** The last block processed. */
    private last: number,
    private readonly hooks: WatcherHooks,
  ) {}

  get position(): number {
    return this.last;
  }

  /** Starts following the node's new heads, and catches up with what was mined meanwhile. */
  start(): void {
    this.chain.watchHeads(
      () => void this.sync().catch(() => {}),
      (error) => this.hooks.onError(error),
    );
    void this.sync().catch(() => {});
  }

  /** Processes every block up to the head as it is now; runs after (and joins) any run queued. */
  sync(): Promise<void> {
    if (this.queued) return this.queued;
    const run = this.tail.then(() => {
      this.queued = null;
      return this.runOnce();
    });
    this.queued = run;
    this.tail = run.catch(() => {});
    return run;
  }

  /** Stops processing (after the range in hand) until `resume`: a reset or restore replaces the chain meanwhile. */
  async pause(): Promise<void> {
    this.paused = true;
    clearTimeout(this.retry);
    await this.tail;
  }

  /** Processing again, from `position` (the replaced chain's). */
  resume(position: number): void {
    this.last = position;
    this.paused = false;
    void this.sync().catch(() => {});
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.pause();
  }

  private async runOnce(): Promise<void> {
    if (this.paused || this.stopped) return;
    try {
      const head = await this.chain.blockNumber();
      if (head < this.last) {
        await this.hooks.onRewind(head);
        this.last = head;
        return;
      }
      while (this.last < head && !this.paused) {
        const to = Math.min(head, this.last + MAX_RANGE);
        await this.hooks.onBlocks(this.last + 1, to, head);
        this.last = to;
      }
    } catch (error) {
      // A busy database, a node that went away: said once, tried again shortly (the node's next
      // block would do too, but none may come).
      this.hooks.onError(new Error(`chain ${this.chain.networkId}: ${errorMessage(error)}`, { cause: error }));
      if (!this.paused && !this.stopped) {
        clearTimeout(this.retry);
        this.retry = setTimeout(() => void this.sync().catch(() => {}), RETRY_MS);
        this.retry.unref();
      }
      throw error;
    }
  }
}
