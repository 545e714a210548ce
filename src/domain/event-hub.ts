/**
 * A minimal typed fan-out, for the emulator's events and the tunnel's alike; a throwing listener
 * must not break whoever emits. Pure (no I/O), so it sits on the bottom floor where both reach it.
 */
export class EventHub<E> {
  private readonly listeners = new Set<(event: E) => void>();
  /** Listeners `size` leaves out: the emulator's own plumbing, which must not turn on work done only for observers. */
  private quiet = 0;

  on(listener: (event: E) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** As `on`, but not counted by `size`. */
  onQuietly(listener: (event: E) => void): () => void {
    // A wrapper of its own: the same function added twice stays two listeners, counted right.
    const own = (event: E) => listener(event);
    this.listeners.add(own);
    this.quiet++;
    return () => {
      if (this.listeners.delete(own)) this.quiet--;
    };
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
    return this.listeners.size - this.quiet;
  }
}
