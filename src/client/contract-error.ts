/**
 * The contract's error body (`{error: {code, message, param?}}`), when `data` is one. Both transports
 * (node:http and fetch) read a refusal through this: a 4xx/5xx from something that is not the service
 * (a proxy's HTML page, a half-written body) must not pass for one of its errors.
 */
export function contractError(data: unknown): { code: string; message: string; param?: string } | undefined {
  if (typeof data !== 'object' || data === null || !('error' in data)) return undefined;
  const e = data.error;
  if (typeof e !== 'object' || e === null || !('code' in e) || !('message' in e) || typeof e.code !== 'string' || typeof e.message !== 'string')
    return undefined;
  return { code: e.code, message: e.message, ...('param' in e && typeof e.param === 'string' ? { param: e.param } : {}) };
}
