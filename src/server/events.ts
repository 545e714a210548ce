/**
 * What the running emulator reports, as a discriminated union. `svc dev` renders these as lines
 * or NDJSON; tests assert on them. The emulator itself never prints.
 */
import type { DeliveryEvent } from '../webhooks/delivery-events.js';

export type EmulatorEvent =
  | DeliveryEvent
  | { type: 'request'; requestId: string; method: string; path: string; status: number; durationMs: number }
  | { type: 'warning'; message: string; requestId?: string }
  | { type: 'error'; message: string; requestId?: string; stack?: string };

export type EmulatorListener = (event: EmulatorEvent) => void;

/** A minimal typed fan-out; a throwing listener must not break the emulator. */
export class EventHub<E> {
  private readonly listeners = new Set<(event: E) => void>();

  on(listener: (event: E) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: E): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A renderer's bug is not the emulator's: keep serving.
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
