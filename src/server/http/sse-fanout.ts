import type { ServerResponse } from 'node:http';
import { SSE_LIMITS, SseWriter } from '../../webhooks/sse-writer.js';

interface Reader<T> {
  writer: SseWriter;
  accept(item: T): boolean;
}

/** Work a fan-out did, for tests and figures: how many items were published, and formatted. */
export interface FanoutStats {
  published: number;
  /** Frames built: one per item that at least one reader wanted, however many readers there are. */
  formatted: number;
  /** Frames handed to readers (on the stream side, after the write that published them). */
  sent: number;
}

/**
 * One server-sent-events stream kind with many readers (CONTRACT §8: "a write's cost does not grow
 * with the number of readers"). A write publishes its item in O(1): it is queued, and one deferred
 * flush per turn of the event loop formats each item once and hands the same frame to every reader
 * that wants it, each through its own bounded SseWriter. The source is subscribed to only while
 * someone reads, so an unobserved emulator pays nothing.
 */
export class SseFanout<T> {
  private readonly readers = new Set<Reader<T>>();
  private pending: T[] = [];
  private scheduled = false;
  private unsubscribe: (() => void) | undefined;
  readonly stats: FanoutStats = { published: 0, formatted: 0, sent: 0 };

  constructor(
    private readonly format: (item: T) => string,
    private readonly source: (publish: (item: T) => void) => () => void,
    private readonly limits = SSE_LIMITS,
  ) {}

  /** Holds `res` as one more reader of the items `accept` keeps; returns its writer (for pings). */
  attach(res: ServerResponse, accept: (item: T) => boolean = () => true): SseWriter {
    const reader: Reader<T> = { writer: new SseWriter(res, this.limits), accept };
    this.readers.add(reader);
    if (this.readers.size === 1) this.unsubscribe = this.source((item) => this.publish(item));
    reader.writer.onClose(() => {
      this.readers.delete(reader);
      if (this.readers.size === 0) {
        this.unsubscribe?.();
        this.unsubscribe = undefined;
        this.pending = [];
      }
    });
    return reader.writer;
  }

  get readerCount(): number {
    return this.readers.size;
  }

  /** The write path's whole share: queue the item, make sure a flush will run. */
  publish(item: T): void {
    this.stats.published++;
    this.pending.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    for (const item of batch) {
      let frame: string | undefined;
      for (const reader of this.readers) {
        if (!reader.writer.open || !safely(() => reader.accept(item))) continue;
        if (frame === undefined) {
          frame = this.format(item);
          this.stats.formatted++;
        }
        reader.writer.send(frame);
        this.stats.sent++;
      }
    }
  }
}

/** A reader's filter that throws skips the item for that reader only. */
function safely(test: () => boolean): boolean {
  try {
    return test();
  } catch {
    return false;
  }
}
