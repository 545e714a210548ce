/**
 * What a `catch` gets is `unknown`: a thrown value may be an Error, an errno error from Node, a
 * better-sqlite3 error with a `SQLITE_*` code, or anything at all. These narrow it by looking, so
 * no caller casts (`error as NodeJS.ErrnoException`) and trusts a shape it never checked.
 */

/** The error's `code` when it carries a string one (`ENOENT`, `SQLITE_BUSY`, `ERR_…`). */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** The error's message; a thrown non-Error becomes its string form. */
export function errorMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
  return String(error);
}

/** The error's `cause`, when it has one. */
export function errorCause(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'cause' in error ? error.cause : undefined;
}

/** Any property of a caught error (`port`, `hostname`, …), unknown until checked. */
export function errorProperty(error: unknown, key: string): unknown {
  return typeof error === 'object' && error !== null ? Reflect.get(error, key) : undefined;
}

/** A property of a caught error, when present and a string (`syscall`, `hostname`, `address`, `reason`, `filepath`). */
export function errorString(error: unknown, key: string): string | undefined {
  const value = errorProperty(error, key);
  return typeof value === 'string' ? value : undefined;
}

/** An Error from Node's system calls, optionally with the given code (`isErrnoException(e, 'ENOENT')`). */
export function isErrnoException(error: unknown, code?: string): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof errorCode(error) === 'string' && (code === undefined || errorCode(error) === code);
}

/** The thrown value as an Error, for callbacks typed `(error: Error)`; a non-Error is wrapped, keeping it as the cause. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(errorMessage(error), { cause: error });
}
