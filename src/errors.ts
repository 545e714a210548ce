/**
 * Errors that cross module boundaries. Only `cli/main.ts` turns them into exit codes:
 * a UserError is something the user can fix (exit 1), a UsageError is a bad command line (exit 2),
 * anything else is a bug.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    message: string,
    /** A stable, machine-readable code, e.g. `config_invalid`. */
    readonly code: string = 'user_error',
    /** Extra lines of explanation: what to do about it. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A configuration file that does not validate; names the file and the field. */
export class ConfigError extends UserError {
  constructor(
    readonly file: string,
    readonly field: string,
    detail: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ''}${detail}`, 'config_invalid');
  }
}

/** A command line that cannot run as given: a missing or invalid flag (exit 2). Names the flag. */
export class UsageError extends UserError {
  constructor(
    message: string,
    readonly flag?: string,
  ) {
    super(message, 'usage_error');
  }
}
