import type { AttemptResult } from './attempt.js';

/** What a listener reports back after forwarding one delivery to the developer's app. */
export interface ListenerResult {
  status: number | null;
  body: string | null;
  error: string | null;
  durationMs: number;
}

/** How much of the app's answer a listener's result keeps (characters). */
export const LISTENER_BODY_LIMIT = 4096;

/**
 * A result another replica stored for this one (store/postgres/listener-presence.ts): checked, not trusted
 * (CONTRACT §8: what the store holds may come from anywhere); one that is not a result is a failure.
 */
export function storedResult(json: string): AttemptResult {
  const value: unknown = JSON.parse(json);
  return isListenerResult(value) ? resultOf(value) : failed('listener_unavailable: the result another replica stored is not one');
}

function isListenerResult(value: unknown): value is ListenerResult {
  if (typeof value !== 'object' || value === null) return false;
  const r: Record<string, unknown> = { ...value };
  const orNull = (v: unknown, type: 'number' | 'string') => v === null || typeof v === type;
  return orNull(r.status, 'number') && orNull(r.body, 'string') && orNull(r.error, 'string') && typeof r.durationMs === 'number';
}

/** What an attempt records of the listener's report. */
export function resultOf(result: ListenerResult): AttemptResult {
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  return {
    ok,
    responseStatus: result.status,
    responseBody: result.body === null ? null : result.body.slice(0, LISTENER_BODY_LIMIT),
    error: ok ? null : (result.error ?? (result.status !== null ? `http_status: ${result.status}` : 'network_error: the listener reported no status')),
    errorKind: null,
    durationMs: result.durationMs,
  };
}

export function failed(error: string, durationMs = 0): AttemptResult {
  return { ok: false, responseStatus: null, responseBody: null, error, errorKind: null, durationMs };
}
