import type { RequestLineFields } from '../../views/request.js';

/**
 * The fields `svc logs tail` prints of a journal stream message (contract `JournalEntry`), checked by
 * looking; null when the message has another shape (another svc version's emulator, a proxy in
 * between). No zod: it is the one message this command reads, on its start-up path.
 */
export function requestLineFieldsOf(value: unknown): RequestLineFields | null {
  if (typeof value !== 'object' || value === null) return null;
  const f = (key: string): unknown => Reflect.get(value, key);
  const [id, at, method, path, query] = ['id', 'at', 'method', 'path', 'query'].map(f);
  if (typeof id !== 'string' || typeof at !== 'string' || typeof method !== 'string' || typeof path !== 'string' || typeof query !== 'string') return null;
  const status = f('status');
  const durationMs = f('durationMs');
  const replayed = f('replayed');
  const fault = f('fault');
  const responseBody = f('responseBody');
  if (!(status === null || typeof status === 'number') || typeof durationMs !== 'number' || typeof replayed !== 'boolean') return null;
  if (!(fault === null || typeof fault === 'string') || !(responseBody === null || typeof responseBody === 'string')) return null;
  const principal = principalOf(f('principal'));
  if (principal === undefined) return null;
  return { id, at, method, path, query, status, durationMs, replayed, fault, responseBody, principal };
}

/** The principal's kind and environment; null for none (no valid key); undefined when malformed. */
function principalOf(value: unknown): RequestLineFields['principal'] | undefined {
  if (value === null) return null;
  if (typeof value !== 'object') return undefined;
  const kind = Reflect.get(value, 'kind');
  const environment = Reflect.get(value, 'environment');
  if ((kind !== 'partner' && kind !== 'merchant') || (environment !== 'test' && environment !== 'live')) return undefined;
  return { kind, environment };
}
