import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin', 'svc.js');
const lib = path.join(root, 'bench', 'lib');
/** What every start-up row is compared with: a Node process that prints one line. */
const PRINT_A_LINE = ['-e', "console.log('ready')"];

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Wall time from spawn until the first line on stdout (ms); the process is then stopped. */
function untilFirstLine(args, cwd) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    let err = '';
    let ms;
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (ms === undefined && out.includes('\n')) {
        ms = Number(process.hrtime.bigint() - started) / 1e6;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      ms === undefined ? reject(new Error(`node ${args.join(' ')} exited ${code} before a line: ${err}`)) : resolve({ ms, line: out.split('\n')[0] }),
    );
  });
}

/** Wall time of a whole process (ms), with what it printed. */
export function wholeProcess(args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    execFile(process.execPath, args, { cwd: os.tmpdir() }, (error, stdout, stderr) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (error) reject(new Error(`node ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve({ ms, stdout });
    });
  });
}

/** The floor scripts: what each start-up row's process cannot do without, and nothing of svc. */
export const floor = (name) => path.join(lib, 'floors', name);

/**
 * Alternates `rounds` + 1 runs of each measure (the first round only warms the file cache), so that a
 * burst of load on this shared machine hits all of them alike; returns each one's times.
 */
export async function alternate(measures, rounds) {
  const times = measures.map(() => []);
  for (let i = 0; i < rounds + 1; i++) {
    for (const [j, measure] of measures.entries()) {
      const ms = await measure();
      if (i > 0) times[j].push(ms);
    }
  }
  return times;
}

/**
 * #12, #13: what a user feels of start-up, each against its floor (bench/lib/floors/): a script that
 * does only what the row's process must do, in the same run, in turns. `node -e` printing a line is
 * measured beside them for the detail.
 */
export async function startupSpeed(report, { runs = 15 } = {}) {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-startup-'));
  try {
    const [base, bottom, dev] = await alternate(
      [
        async () => (await untilFirstLine(PRINT_A_LINE, cwd)).ms,
        async () => (await untilFirstLine([floor('dev.cjs')], cwd)).ms,
        async () => {
          const d = await untilFirstLine([bin, 'dev', '--memory', '--port', '0', '--json'], cwd);
          if (JSON.parse(d.line).type !== 'ready') throw new Error(`svc dev's first line is not the ready event: ${d.line}`);
          return d.ms;
        },
      ],
      runs,
    );
    report({
      id: 12,
      what: '`svc dev --memory --port 0 --json` until its ready line vs its floor (better-sqlite3, `:memory:`, one table, node:http listening, a line printed)',
      value: median(dev) / median(bottom),
      target: 1.3,
      better: 'lower',
      unit: '×',
      detail: `${median(dev).toFixed(0)} vs ${median(bottom).toFixed(0)} ms, medians of ${runs} alternating runs; \`node -e\` printing a line ${median(base).toFixed(0)} ms`,
    });
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }

  const phases = [];
  const [base, bottom, whole] = await alternate(
    [
      async () => (await wholeProcess(PRINT_A_LINE)).ms,
      async () => (await wholeProcess([floor('inprocess.cjs')])).ms,
      async () => {
        const p = await wholeProcess([path.join(lib, 'startup-probe.mjs')]);
        phases.push(JSON.parse(p.stdout));
        return p.ms;
      },
    ],
    runs,
  );
  phases.shift(); // the warm-up round's
  const phase = (name) => median(phases.map((p) => p[name])).toFixed(0);
  report({
    id: 13,
    what: 'a fresh process: import the package, `startEmulator({port: 0, db: ":memory:"})`, one create, stop; vs its floor (#12\'s, plus node:crypto\'s random key and one request to itself)',
    value: median(whole) / median(bottom),
    target: 1.3,
    better: 'lower',
    unit: '×',
    detail: `${median(whole).toFixed(0)} vs ${median(bottom).toFixed(0)} ms, medians of ${runs} alternating runs; inside the process: import ${phase('import')}, start ${phase('start')}, first create ${phase('create')}, stop ${phase('stop')} ms; \`node -e\` printing a line ${median(base).toFixed(0)} ms`,
  });
}

/**
 * #14: `reset()` in-process with 1,000 invoices stored (and their events), as a suite's beforeEach
 * pays it; the reset of a database holding only the defaults is printed beside it.
 */
export async function resetSpeed(report, { invoices = 1000, rounds = 7 } = {}) {
  const { stdout } = await wholeProcess([path.join(lib, 'reset-probe.mjs'), JSON.stringify({ invoices, rounds })]);
  const { filled, empty } = JSON.parse(stdout);
  report({
    id: 14,
    what: `\`reset()\` in-process with ${invoices.toLocaleString('en')} invoices stored (in-memory database)`,
    value: median(filled),
    target: 10,
    better: 'lower',
    unit: 'ms',
    detail: `median of ${rounds}; with only the defaults stored: ${median(empty).toFixed(1)} ms`,
  });
}
