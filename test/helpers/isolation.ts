/**
 * setupFile of every project and of the reliability suite (first in the list): each test runs with
 * its own HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME, TMPDIR and working folder under the run's root
 * (test/helpers/isolation-root.ts), and without the SVC_* variables of the shell that started vitest
 * (an exported SVC_BASE_URL or SVC_PROFILE would point the CLI under test elsewhere). Child
 * processes the helpers spawn inherit this env and start in the working folder. After each test a
 * guard fails it when a `.svc/dev.json` appeared above the run's root or the real HOME's svc files
 * changed: both mean a test wrote outside its folders.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, inject } from 'vitest';
import { devStateAbove, homeFootprint } from './isolation-check.js';

/** Knobs of the test suites themselves, not of svc: kept. */
const TEST_KNOBS = new Set(['SVC_RESPONSE_STATS', 'SVC_RELIABILITY_SEED', 'SVC_EXIT_RUNS']);
for (const name of Object.keys(process.env)) {
  if (name.startsWith('SVC_') && !TEST_KNOBS.has(name)) delete process.env[name];
}

const root = inject('svcTestRoot');
const realHome = inject('svcRealHome');
// One folder per test file (named after it), one per test inside.
const file = expect.getState().testPath ?? 'unknown';
const fileDir = path.join(root, `${path.basename(file, '.test.ts')}-${createHash('sha256').update(file).digest('hex').slice(0, 8)}`);
let count = 0;
let homeBefore: Record<string, string> = {};
let aboveBefore = '';
/** A dev.json's path, size and time, or '' when there is none. */
const stateOf = (file: string | null): string => {
  const st = file ? fs.statSync(file, { throwIfNoEntry: false }) : undefined;
  return file && st ? `${file}:${st.size}:${st.mtimeMs}` : '';
};

/** The current test's own folders (what HOME, XDG_*, TMPDIR and the working folder point to). */
export interface TestFolders {
  home: string;
  configHome: string;
  cacheHome: string;
  tmp: string;
  work: string;
}

export function testFolders(): TestFolders {
  const dir = path.join(fileDir, String(count));
  return {
    home: path.join(dir, 'home'),
    configHome: path.join(dir, 'home', '.config'),
    cacheHome: path.join(dir, 'home', '.cache'),
    tmp: path.join(dir, 'tmp'),
    work: path.join(dir, 'work'),
  };
}

function enter(): void {
  count += 1;
  const f = testFolders();
  for (const d of [f.configHome, f.cacheHome, f.tmp, f.work]) fs.mkdirSync(d, { recursive: true });
  Object.assign(process.env, { HOME: f.home, XDG_CONFIG_HOME: f.configHome, XDG_CACHE_HOME: f.cacheHome, TMPDIR: f.tmp });
  process.chdir(f.work);
}

// The file's top level (describe bodies, tempDir() calls outside tests) already runs in a folder of its own.
enter();

beforeEach(() => {
  enter();
  homeBefore = homeFootprint(realHome);
  aboveBefore = stateOf(devStateAbove(root));
});

afterEach(() => {
  // A `svc dev` left running in /tmp before the run is the machine's (and svc never reads it from
  // here); one that appeared or changed during this test was written by it, outside its folders.
  const above = devStateAbove(root);
  if (stateOf(above) !== aboveBefore)
    throw new Error(
      `isolation: ${above ?? 'a .svc/dev.json'} above the tests' folders (${root}) appeared or changed during this test: the test wrote outside its folders, or a svc dev was started there during the run`,
    );
  expect(homeFootprint(realHome), `isolation: this test changed svc's files in the real HOME (${realHome})`).toEqual(homeBefore);
});
