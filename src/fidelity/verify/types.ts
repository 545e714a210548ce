/**
 * `svc verify`'s checks as data: each has a stable id (`group.name`), the CONTRACT section it holds
 * and a title, and a `run` that passes by returning, fails by throwing CheckFailed (what was expected,
 * what came) and skips by throwing CheckSkipped (why the deployment cannot be asked). The same list
 * runs against svc in our own integration suite, so a check and svc cannot drift apart silently.
 */
import type { VerifyContext } from './context.js';

export type { CheckResult, Outcome } from './result.js';

/** One check, declared once: `run` talks to the deployment over HTTP through `ctx` only. */
export interface Check {
  /** `group.name`, stable across releases: how a failure is reported and looked up. */
  readonly id: string;
  /** The section of CONTRACT.md it holds, e.g. `§2`. */
  readonly section: string;
  readonly title: string;
  /** Resolves to nothing (passed) or a note on what was seen; throws CheckFailed or CheckSkipped. */
  run(ctx: VerifyContext): Promise<string | undefined>;
}

/** The check's rule was broken: `expected` and `got` say how, in words a report can quote. */
export class CheckFailed extends Error {
  constructor(
    readonly expected: string,
    readonly got: string,
  ) {
    super(`expected ${expected}; got ${got}`);
    this.name = 'CheckFailed';
  }
}

/** The deployment cannot be asked this (no test helpers, no reachable receiver, …): not a failure. */
export class CheckSkipped extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'CheckSkipped';
  }
}

/** The group of a check id: `idempotency.replay-same-body` → `idempotency`. */
export const groupOf = (id: string): string => id.slice(0, id.indexOf('.'));

/** Declares checks with their literal ids kept. */
export function defineChecks(checks: Check[]): Check[] {
  return checks;
}
