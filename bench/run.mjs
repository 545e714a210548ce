#!/usr/bin/env node
// npm run bench: every figure is a ratio (or a rate) measured in this one run, against a baseline
// measured in the same run, because these machines are shared and noisy. Writes
// bench/results/latest.json and the table in docs/performance.md.
//   --only 1,5,8   run some cases      --invoices N   rows for #4 (default 1,000,000)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigDatabase } from './cases/big-database.mjs';
import { cliSpeed } from './cases/cli.mjs';
import { deliveryLatency, deliveryThroughput } from './cases/delivery.mjs';
import { execOverhead } from './cases/exec.mjs';
import { httpThroughput, memoryGrowth } from './cases/http.mjs';
import { peerThroughput } from './cases/peer.mjs';
import { snapshotSpeed } from './cases/snapshot.mjs';
import { resetSpeed, startupSpeed } from './cases/startup.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1].split(',').map(Number)) : null;
const invoices = args.includes('--invoices') ? Number(args[args.indexOf('--invoices') + 1]) : 1_000_000;

const rows = [];
// A row with `skip` (its reason) could not be measured here: it is listed, neither pass nor miss.
const report = (row) => {
  const pass = row.skip ? null : row.better === 'higher' ? row.value >= row.target : row.value <= row.target;
  const full = row.skip ? { value: NaN, ...row, detail: `skipped: ${row.skip}`, pass } : { ...row, pass };
  rows.push(full);
  console.log(
    `${pass === null ? 'skip' : pass ? 'pass' : 'MISS'}  #${row.id}  ${format(full.value, row.unit)} (target ${row.better === 'higher' ? '≥' : '≤'} ${format(row.target, row.unit)})  ${row.what}${full.detail ? ` — ${full.detail}` : ''}`,
  );
};

const cases = [
  [[1, 2, 3], () => httpThroughput(report)],
  [[4], () => bigDatabase(report, { invoices })],
  [[5], () => deliveryThroughput(report)],
  [[6, 7], () => deliveryLatency(report)],
  [[8, 9, 10], () => cliSpeed(report)],
  [[11], () => memoryGrowth(report)],
  [[12, 13], () => startupSpeed(report)],
  [[14], () => resetSpeed(report)],
  [[15], () => peerThroughput(report)],
  [[16], () => execOverhead(report)],
  [[17], () => snapshotSpeed(report)],
];
for (const [ids, run] of cases) {
  if (only && !ids.some((id) => only.has(id))) continue;
  try {
    await run();
  } catch (error) {
    console.error(`case ${ids.join(',')} failed: ${error.stack ?? error}`);
    for (const id of ids) rows.push({ id, what: 'failed to run', value: NaN, target: NaN, pass: false, detail: String(error.message ?? error) });
  }
}

const machine = {
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  date: new Date().toISOString(),
};
const results = { machine, rows };
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', only ? 'partial.json' : 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
if (!only) updateReadme(results);
const skipped = rows.filter((r) => r.pass === null).length;
console.log(`\n${rows.filter((r) => r.pass).length}/${rows.length - skipped} targets met${skipped ? `, ${skipped} skipped` : ''}`);

function format(value, unit) {
  if (!Number.isFinite(value)) return 'n/a';
  if (unit === 'growth') return `${(value * 100).toFixed(1)}%`;
  if (unit === 'ms') return `${value.toFixed(1)} ms`;
  if (unit === 'MB') return `${value.toFixed(0)} MB`;
  if (unit === '×') return `${value.toFixed(2)}×`;
  if (unit) return `${Math.round(value).toLocaleString('en')} ${unit}`;
  return value.toFixed(2);
}

function updateReadme({ machine, rows }) {
  const file = path.join(here, '..', 'docs', 'performance.md');
  const readme = fs.readFileSync(file, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  if (!readme.includes(start)) return;
  const table = [
    `Measured ${machine.date.slice(0, 10)} on ${machine.cores} × ${machine.cpu}, ${machine.memoryGiB} GiB, Node ${machine.node}.`,
    '',
    '| # | What | Result | Target | |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.id} | ${r.what}${r.detail ? ` <br><sub>${r.detail}</sub>` : ''} | ${format(r.value, r.unit)} | ${r.better === 'higher' ? '≥' : '≤'} ${format(r.target, r.unit)} | ${r.pass === null ? 'skipped' : r.pass ? 'pass' : '**miss**'} |`,
    ),
  ].join('\n');
  fs.writeFileSync(file, `${readme.slice(0, readme.indexOf(start) + start.length)}\n${table}\n${readme.slice(readme.indexOf(end))}`);
}
