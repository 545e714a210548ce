/**
 * setupFile of the integration project: every response an in-process emulator sends is checked
 * against the OpenAPI document built from the contract (the one `GET /openapi.json` serves), and a
 * test during which one did not match fails, naming the request and the mismatch. So a schema and a
 * handler cannot disagree without a red test.
 *
 * `SVC_RESPONSE_STATS=<file>` appends one line per test file with how many responses were checked.
 */
import fs from 'node:fs';
import { afterAll, afterEach, expect } from 'vitest';
import { buildOpenApi } from '../../src/contract/openapi/build.js';
import { observeResponses } from '../../src/server/response-observer.js';
import { VERSION } from '../../src/version.js';
import { createResponseChecker } from './response-checker.js';

const checker = createResponseChecker(buildOpenApi(VERSION));
observeResponses((response) => checker.check(response));

const fail = (problems: string[]) => {
  throw new Error(`${problems.length} response(s) do not match the OpenAPI document:\n${problems.join('\n')}`);
};

afterEach(() => {
  const problems = checker.take();
  if (problems.length) fail(problems);
});

afterAll(() => {
  const stats = process.env.SVC_RESPONSE_STATS;
  if (stats) {
    const file = expect.getState().testPath ?? 'unknown';
    fs.appendFileSync(stats, `${JSON.stringify({ file, total: checker.counts.total, byOperation: Object.fromEntries(checker.counts.byOperation) })}\n`);
  }
  // Responses sent while the file's emulators stopped (after its last test).
  const problems = checker.take();
  if (problems.length) fail(problems);
});
