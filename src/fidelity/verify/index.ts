import type { VerifyReport, VerifyRunOptions } from './run.js';

export type { VerifyReport, VerifyRunOptions } from './run.js';
export type { CheckResult, Outcome } from './result.js';

/**
 * Runs CONTRACT §13's portable conformance suite against a deployment (`svc verify` in-process):
 * every check's outcome, passed, failed (expected vs got) or skipped (why). Test keys only.
 * The suite and its OpenAPI validator are loaded when it runs, not when the package is imported.
 * @throws UsageError for a live or malformed key, a base URL that is not http(s), an unknown group
 * @throws ServiceUnreachableError when the deployment does not answer at all
 */
export async function verify(options: VerifyRunOptions): Promise<VerifyReport> {
  const run = await import('./run.js');
  return run.verify(options);
}
