import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { BIN, ROOT } from './cli.js';

/**
 * The ```sh blocks of `file` (a path from the repository root) between `<!-- marker:start -->` and
 * `<!-- marker:end -->`: the documented examples the tests run as written.
 */
export function docBlocks(file: string, marker: string): string[] {
  const doc = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const start = doc.indexOf(`<!-- ${marker}:start -->`);
  const end = doc.indexOf(`<!-- ${marker}:end -->`);
  expect(start, `${file} needs the ${marker} markers`).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return [...doc.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** `<dir>/svc`, running this checkout's build, as `npm install svc-emulator` (or `npm link`) would link it. */
export function installSvc(binDir: string): void {
  fs.mkdirSync(binDir, { recursive: true });
  fs.writeFileSync(path.join(binDir, 'svc'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, { mode: 0o755 });
}

/** Runs `script` in a clean, non-interactive bash, without colours. */
export function bash(script: string, cwd: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync('bash', ['--norc', '--noprofile', '-c', script], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8', timeout: 60_000 });
}
