import { ApiError } from '../api-error.js';

/**
 * Refuses a body whose fields hold text no engine stores as sent: 400 `validation_failed` naming the
 * field, on both engines. U+0000 (NUL): PostgreSQL's text cannot hold it (the statement fails,
 * SQLSTATE 22021), so a reference id with one was a 500 there and a stored value on SQLite. A lone
 * surrogate (`"\ud800"` in JSON, not a character): both engines store U+FFFD in its place, so the
 * create's answer and every later read disagreed. Checked on what the schema kept: unknown fields
 * are ignored, never stored.
 */
export function refuseUnstorableText(body: unknown): void {
  const found = unstorableAt(body, '');
  if (found === undefined) return;
  const name = found.path || 'body';
  const why = found.nul ? 'must not contain the character U+0000 (NUL)' : 'must be Unicode text (it holds a lone surrogate, such as \\ud800)';
  throw new ApiError(400, 'validation_failed', `${name} ${why}.`, found.path || undefined);
}

interface Found {
  path: string;
  /** true: U+0000; false: a lone surrogate. */
  nul: boolean;
}

/** The first string (or key) in `value` that holds U+0000 or a lone surrogate, or undefined. */
export function unstorableAt(value: unknown, path: string): Found | undefined {
  if (typeof value === 'string') return problem(value, path);
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorableAt(item, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const found = problem(key, at) ?? unstorableAt(item, at);
    if (found) return found;
  }
  return undefined;
}

function problem(text: string, path: string): Found | undefined {
  if (text.includes('\0')) return { path, nul: true };
  // A lone surrogate is what makes a string not well formed (ES2024). Not `/\p{Cs}/u`: building that
  // Unicode class was ~0.25 ms of the first create of every process (bench #13).
  return text.isWellFormed() ? undefined : { path, nul: false };
}
