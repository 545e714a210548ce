import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin', 'svc.js');
const NOTHING = ['-e', '0'];

/** Wall time of one spawn of `node args…`, in ms; it must succeed. */
function time(args, cwd) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** `svc dev`'s floor plus the command as a child, waited for (bench/lib/floors/exec.cjs). */
const FLOOR = path.join(root, 'bench', 'lib', 'floors', 'exec.cjs');

/**
 * #16: what `svc exec` adds around a command, in CI's one line: start an emulator (in memory, free
 * port), run a command that does nothing (`node -e 0`), stop. Against its floor (#12's floor that runs
 * the same command as a child and waits for it), in turns with it and with `node -e 0` alone, so that
 * a burst of load on this shared machine hits all three; medians of `runs` rounds after a warm-up one.
 */
export async function execOverhead(report, { runs = 20 } = {}) {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-exec-'));
  try {
    const base = [];
    const bottom = [];
    const exec = [];
    for (let i = 0; i < runs + 1; i++) {
      const b = time(NOTHING, cwd);
      const f = time([FLOOR, process.execPath, ...NOTHING], cwd);
      const e = time([bin, 'exec', '--', process.execPath, ...NOTHING], cwd);
      if (i === 0) continue; // the first round warms the file cache
      base.push(b);
      bottom.push(f);
      exec.push(e);
    }
    report({
      id: 16,
      what: "`svc exec -- node -e 0` (start an emulator, run a command that does nothing, stop) vs its floor (#12's floor running `node -e 0` as a child)",
      value: median(exec) / median(bottom),
      target: 1.3,
      better: 'lower',
      unit: '×',
      detail: `${median(exec).toFixed(0)} vs ${median(bottom).toFixed(0)} ms, medians of ${runs} alternating runs; \`node -e 0\` alone ${median(base).toFixed(0)} ms`,
    });
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}
