#!/usr/bin/env node
// `npm test` (after scripts/ensure-test-tools.mjs): the main suite (vitest.config.ts, every project,
// integration-postgres among them),
// then the reliability suite (vitest.reliability.config.ts), ALWAYS both: a red main suite used to
// skip the reliability one (`a && b`), hiding its state. One summary line per suite, then a last
// line `N passed, N failed` alone (CI reads it); exit 1 when either suite failed.
// Arguments are passed to both runs (`npm test -- test/integration/x.test.ts` runs that file; the
// other suite then finds no file and counts nothing).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const SUITES = [
  { name: 'main', args: [] },
  { name: 'reliability', args: ['--config', 'vitest.reliability.config.ts'] },
];
const extra = process.argv.slice(2);
const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-report-'));

/** Runs one suite with the usual output plus a JSON report to count from. */
function run(suite) {
  const report = path.join(reports, `${suite.name}.json`);
  const args = [VITEST, 'run', ...suite.args, '--passWithNoTests', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extra];
  const { status, signal } = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  let passed = 0;
  let failed = 0;
  try {
    const json = JSON.parse(fs.readFileSync(report, 'utf8'));
    passed = json.numPassedTests;
    failed = json.numFailedTests;
  } catch {
    // No report: the run died before writing it (a crash, a failed build); counted below.
  }
  // A red exit without a failed test (an error outside tests, a crashed worker) still fails the suite.
  const ok = status === 0;
  if (!ok && failed === 0) failed = 1;
  return { ...suite, passed, failed, ok, exit: signal ?? status };
}

const results = SUITES.map(run);
fs.rmSync(reports, { recursive: true, force: true });
console.log('');
for (const r of results) console.log(`${r.name} suite: ${r.passed} passed, ${r.failed} failed${r.ok ? '' : ` (vitest exit ${r.exit})`}`);
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
