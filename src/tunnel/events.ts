/**
 * What a running quick tunnel reports, as a discriminated union (ARCHITECTURE habit 5): the tunnel
 * module never prints; `svc webhook listen` renders these as lines or NDJSON, and tests assert on them.
 */
import { EventHub } from '../domain/event-hub.js';

export type TunnelEvent =
  /** The cloudflared process is being spawned with these arguments. */
  | { type: 'starting'; bin: string; args: string[] }
  /** The public URL cloudflared printed in its banner (the tunnel may need a moment to be reachable). */
  | { type: 'url'; url: string }
  /** One edge connection registered; quick tunnels use a single one (connIndex 0), re-registered after a drop. */
  | { type: 'connected'; connIndex: number; location?: string }
  /** The process is gone, whether asked to stop or not. */
  | { type: 'exited'; code: number | null; signal: NodeJS.Signals | null }
  /** Something went wrong after start, e.g. cloudflared exited while the tunnel was in use. */
  | { type: 'error'; message: string; cause?: unknown };

export type TunnelEventType = TunnelEvent['type'];

export type TunnelListener = (event: TunnelEvent) => void;

/**
 * A fan-out for tunnel events, for callers with more than one consumer (a renderer and a state
 * machine, say). It is the emulator's `EventHub`: one tiny typed emitter for the whole code base,
 * where a throwing listener cannot break the tunnel.
 */
export type TunnelEventHub = EventHub<TunnelEvent>;

/** A new, empty {@link TunnelEventHub}; pass `hub.emit.bind(hub)` as `onEvent`. */
export function createTunnelEventHub(): TunnelEventHub {
  return new EventHub<TunnelEvent>();
}
