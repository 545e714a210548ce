/**
 * A minimal typed fan-out, for the emulator's events and the tunnel's alike; a throwing listener
 * must not break whoever emits. Pure (no I/O), so it sits on the bottom floor where both reach it.
 */
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
        // A renderer's bug is not the emitter's: keep going.
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
