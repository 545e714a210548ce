import type { ServerResponse } from 'node:http';
import { overflowFrame } from './sse-frame.js';

/** CONTRACT §8: what one reader of a server-sent-events stream may leave unsent before it is dropped. */
export const SSE_LIMITS = { bytes: 1024 * 1024, messages: 1000 };

/**
 * How long an overflowed stream may take to send its last bytes (the overflow event) before the
 * socket is destroyed. A reader that never reads again would otherwise hold its buffers for ever.
 */
const OVERFLOW_GRACE_MS = 30_000;

/** Unsent bytes held by every open writer of this process (tests and the reliability figures read it). */
export const sseTotals = { unsentBytes: 0, overflows: 0 };

/**
 * One reader's end of a server-sent-events stream, bounded (CONTRACT §8). Frames go straight to the
 * socket while it drains; once `res.write()` says the socket is full they wait in a queue until
 * 'drain'. A reader that lets more than SSE_LIMITS wait (a paused `less`, a background tab) gets a
 * last `event: overflow` and is closed: memory per reader stays bounded whatever the writers do.
 */
export class SseWriter {
  private queue: string[] = [];
  private queuedBytes = 0;
  private blocked = false;
  private done = false;
  /** The socket is gone: nothing of this stream is held any more. */
  private released = false;
  private counted = 0;
  private readonly closeHandlers: (() => void)[] = [];

  constructor(
    readonly res: ServerResponse,
    private readonly limits: { bytes: number; messages: number } = SSE_LIMITS,
  ) {
    res.on('drain', () => this.drain());
    res.on('close', () => {
      this.released = true;
      this.finish();
      this.recount();
    });
    res.on('finish', () => this.recount());
  }

  /** Whether the stream still takes frames. */
  get open(): boolean {
    return !this.done && !this.res.destroyed;
  }

  /** Bytes written or queued and not yet handed to the network. */
  unsentBytes(): number {
    return this.queuedBytes + this.res.writableLength;
  }

  /** Runs `handler` once, when the stream ends for any reason (overflow, the reader left, stop). */
  onClose(handler: () => void): void {
    if (this.done) handler();
    else this.closeHandlers.push(handler);
  }

  /** Sends one frame (`event: …\ndata: …\n\n`); false once the stream is closed. */
  send(frame: string): boolean {
    if (!this.open) return false;
    if (!this.blocked) {
      this.blocked = !this.res.write(frame);
    } else {
      this.queue.push(frame);
      this.queuedBytes += Buffer.byteLength(frame);
    }
    if (this.queue.length > this.limits.messages || this.unsentBytes() > this.limits.bytes) {
      this.overflow();
      return false;
    }
    this.recount();
    return true;
  }

  /** Sends a comment every `ms` while the stream is open, for idle proxies and clients' liveness checks. */
  heartbeat(ms: number): void {
    const timer = setInterval(() => this.send(': ping\n\n'), ms).unref();
    this.onClose(() => clearInterval(timer));
  }

  /** Ends the stream normally. */
  end(): void {
    if (this.done) return;
    this.res.end();
    this.finish();
  }

  private drain(): void {
    this.blocked = false;
    while (this.queue.length && !this.blocked && this.open) {
      const frame = this.queue.shift()!;
      this.queuedBytes -= Buffer.byteLength(frame);
      this.blocked = !this.res.write(frame);
    }
    this.recount();
  }

  private overflow(): void {
    sseTotals.overflows++;
    const reason = {
      reason: `this reader fell more than ${this.limits.messages} messages or ${this.limits.bytes} bytes behind; the stream was closed (reconnect to resume)`,
      limitBytes: this.limits.bytes,
      limitMessages: this.limits.messages,
    };
    this.queue = [];
    this.queuedBytes = 0;
    this.res.end(overflowFrame(reason));
    this.recount();
    // A reader that never reads again never lets `end` finish: give it time, then let go.
    const timer = setTimeout(() => this.res.destroy(), OVERFLOW_GRACE_MS).unref();
    this.res.once('close', () => clearTimeout(timer));
    this.finish();
  }

  /** Keeps sseTotals in step with this writer's share. */
  private recount(): void {
    const now = this.released ? 0 : this.unsentBytes();
    sseTotals.unsentBytes += now - this.counted;
    this.counted = now;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.recount();
    for (const handler of this.closeHandlers.splice(0)) handler();
  }
}
