/**
 * What `svc webhook listen` reports, as a discriminated union (ARCHITECTURE habit 5). The core in
 * src/listen/ never prints: the CLI renders these as human lines or as NDJSON (one object per line,
 * exactly these objects), and the tests assert on them.
 */
import type { ForwardErrorKind } from './forward.js';

/** `local`: a listener on the emulator's control plane. `remote`: a relay the test webhook points at. */
export type ListenMode = 'local' | 'remote';

/** A webhook configuration as listen saves and restores it (the secret is never readable). */
export interface SavedWebhook {
  url: string;
  enabled: boolean;
  customHeaders: Record<string, string>;
}

export type ListenEvent =
  /**
   * Listening. `secret` signs what the app receives: the listener secret (local), a secret listen
   * generated for a webhook it created (remote, `secretSource: generated`), or null when the
   * partner's configured secret is used and cannot be read back (remote, `configured`).
   */
  | {
      type: 'ready';
      mode: ListenMode;
      forwardTo: string;
      secret: string | null;
      secretSource: 'listener' | 'generated' | 'configured';
      events: string[] | null;
      tunnelUrl?: string;
      relayUrl?: string;
    }
  /** A delivery arrived (before it is forwarded or filtered). `attempt` is known in local mode. */
  | { type: 'event'; eventType: string; eventId: string; deliveryId?: string; attempt?: number }
  /** The app answered 2xx. */
  | { type: 'forwarded'; eventType: string; eventId: string; method: string; url: string; status: number; durationMs: number }
  /** The app answered something else, or could not be reached; `reason` is `<errorKind>: <detail>`. */
  | {
      type: 'forward_failed';
      eventType: string;
      eventId: string;
      method: string;
      url: string;
      status: number | null;
      durationMs: number;
      reason: string;
      errorKind: ForwardErrorKind;
    }
  /** Remote mode: the delivery departs from the contract (envelope, signature; CONTRACT §13). It is forwarded all the same. */
  | { type: 'violation'; eventType: string; eventId: string; message: string }
  /** Not in `--events`: answered 200 without forwarding. */
  | { type: 'filtered'; eventType: string; eventId: string }
  /** The connection to the emulator is gone; the next try is in `delayMs`. */
  | { type: 'reconnecting'; attempt: number; delayMs: number; reason: string }
  /** Connected again after `downMs`; what was missed meanwhile is delivered now. */
  | { type: 'reconnected'; attempts: number; downMs: number }
  /** The cloudflared tunnel's state (remote mode). */
  | {
      type: 'tunnel';
      state: 'starting' | 'url' | 'connected' | 'exited';
      url?: string;
      location?: string;
      bin?: string;
      code?: number | null;
      signal?: string | null;
    }
  /** Putting the webhook back: on exit, or repairing what a killed listen left (`leftover`). */
  | { type: 'restoring'; reason: 'exit' | 'leftover'; to: SavedWebhook | null }
  /**
   * Done: `restored` the saved configuration, `disabled` the webhook listen had created (there is no
   * DELETE), or `skipped` because someone changed the webhook since (it is left as they set it).
   */
  | { type: 'restored'; reason: 'exit' | 'leftover'; action: 'restored' | 'disabled' | 'skipped'; url: string; enabled: boolean }
  | { type: 'warning'; message: string }
  /** A clean stop in local mode removed the listener from the emulator: no deliveries are made for it any more. */
  | { type: 'unregistered'; baseUrl: string }
  /** listen stops with exit code `exitCode`; `hint` says what to do. */
  | { type: 'fatal'; message: string; code: string; hint?: string; exitCode: number }
  /** A clean stop (Ctrl-C, SIGTERM): everything was put back. */
  | { type: 'stopped'; signal: string };

export type ListenEventType = ListenEvent['type'];

export type Emit = (event: ListenEvent) => void;

/** Wraps a renderer so that a bug in it cannot take the listener down. */
export function safeEmit(emit: Emit): Emit {
  return (event) => {
    try {
      emit(event);
    } catch {
      // A renderer's failure (a closed stdout, say) must not stop forwarding.
    }
  };
}
