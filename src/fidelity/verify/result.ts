/** How a check ended. */
export type Outcome = 'passed' | 'failed' | 'skipped';

/** What a check found. `detail` says what was expected and what came (failed), or why it was skipped. */
export interface CheckResult {
  id: string;
  title: string;
  section: string;
  outcome: Outcome;
  detail: string;
}
