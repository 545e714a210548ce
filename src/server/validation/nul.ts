import { ApiError } from '../api-error.js';

/**
 * Refuses a body whose fields hold U+0000 (NUL): 400 `validation_failed` naming the field, on both
 * engines. PostgreSQL's text cannot store the character (the statement fails, SQLSTATE 22021), so a
 * reference id with one was a 500 there and a stored value on SQLite; no integrator means one.
 * Checked on what the schema kept: unknown fields are ignored, never stored.
 */
export function refuseNul(body: unknown): void {
  const field = nulAt(body, '');
  if (field !== undefined) {
    throw new ApiError(400, 'validation_failed', `${field || 'body'} must not contain the character U+0000 (NUL).`, field || undefined);
  }
}

/** The path of the first string (or key) in `value` that holds U+0000, or undefined. */
export function nulAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nulAt(item, `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes('\0')) return at;
    const found = nulAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
