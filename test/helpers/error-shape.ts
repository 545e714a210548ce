export interface ErrorBody {
  error: { code: string; message: string; param?: string };
}

/** Throws unless `text` is exactly the contract's error shape. */
export function parseErrorBody(text: string): ErrorBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`4xx body is not JSON: ${text.slice(0, 200)}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error(`4xx body is not an object: ${text.slice(0, 200)}`);
  const top = Object.keys(body);
  if (top.length !== 1 || top[0] !== 'error') throw new Error(`4xx body has keys ${JSON.stringify(top)}, not just "error"`);
  const error = (body as { error: unknown }).error;
  if (error === null || typeof error !== 'object' || Array.isArray(error)) throw new Error('error is not an object');
  const keys = Object.keys(error).sort();
  const allowed = ['code', 'message', 'param'];
  if (keys.some((k) => !allowed.includes(k))) throw new Error(`error has unexpected keys ${JSON.stringify(keys)}`);
  const e = error as Record<string, unknown>;
  if (typeof e.code !== 'string' || !/^[a-z][a-z_]*$/.test(e.code)) throw new Error(`error.code ${JSON.stringify(e.code)} is not a code`);
  if (typeof e.message !== 'string' || e.message.length === 0) throw new Error('error.message is not a non-empty string');
  if ('param' in e && typeof e.param !== 'string') throw new Error('error.param is present but not a string');
  if (/\n\s+at /.test(text)) throw new Error('error body contains a stack trace');
  return body as ErrorBody;
}
