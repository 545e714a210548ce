#!/usr/bin/env node
// `npm run test:stress [-- --runs N] [-- <vitest filters>]`: proof that the suite does not depend on a
// quiet machine (issue 23: red at load 7-12 on 2 cores). Runs the README's test command (`npm test`,
// after the one `npm ci` the README starts with) N times (default 3) with one CPU-burning process per
// core beside it, and stops at the first red run. Arguments other than --runs/--burners are passed to
// `npm test` (a filter: `npm run test:stress -- --runs 1 test/unit/money.test.ts`).
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  if (i === -1) return fallback;
  const value = Number(argv[i + 1]);
  argv.splice(i, 2);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} takes a whole number above 0`);
    process.exit(2);
  }
  return value;
};
const runs = option('--runs', 3);
const burners = option('--burners', os.availableParallelism());

// Busy loops in their own processes: the load of a machine shared with other builds.
const burning = Array.from({ length: burners }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopBurners = () => {
  for (const b of burning) if (b.exitCode === null && b.signalCode === null) b.kill('SIGKILL');
};
process.on('exit', stopBurners);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let red = 0;
for (let run = 1; run <= runs; run++) {
  console.log(`\n=== test:stress run ${run} of ${runs}, ${burners} CPU burners beside it ===`);
  const started = performance.now();
  const { status } = spawnSync(npm, ['test', ...(argv.length ? ['--', ...argv] : [])], { cwd: ROOT, stdio: 'inherit' });
  const minutes = ((performance.now() - started) / 60_000).toFixed(1);
  console.log(`=== run ${run}: ${status === 0 ? 'green' : 'RED'} in ${minutes} min ===`);
  if (status !== 0) {
    red = run;
    break;
  }
}
stopBurners();
console.log(red ? `test:stress: run ${red} of ${runs} was red` : `test:stress: ${runs} of ${runs} runs green`);
process.exitCode = red ? 1 : 0;
