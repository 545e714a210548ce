import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, start } from '../lib/processes.mjs';
import { createLoad } from './http.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Installed on demand for the bench only (gitignored), never a dependency of the package. */
const PEER_DIR = path.join(here, '..', '.peer');
const PRISM = '@stoplight/prism-cli@5.14.2'; // 5.16 wants Node 24
const PRISM_BIN = path.join(PEER_DIR, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');

/**
 * #15: create-invoice throughput of svc against Prism's mock server serving svc's own OpenAPI
 * document (what a user would otherwise stand up from the file), in alternating 10 s turns with the
 * same load generator and requests. The figure is against Prism as `prism mock openapi.json` starts
 * (logging each request at `info`); Prism quietened to `-v warn` (as quiet as the emulator here,
 * which reports to no one) takes its turns too and is printed beside it. svc uses a file database,
 * as `svc dev` does. Skipped, with the reason, when Prism cannot be installed or serve the document.
 */
export async function peerThroughput(report, { turns = 2 } = {}) {
  const what = 'POST /v1/partner/invoices: svc vs Prism’s mock of svc’s OpenAPI document (32 connections, alternating 10 s turns)';
  const installed = await ensurePrism();
  if (installed !== true) return report({ id: 15, what, skip: `Prism could not be installed (${installed})`, target: 1.5, better: 'higher', unit: '×' });

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-peer-'));
  const emulator = await start('emulator-process.mjs', [JSON.stringify({ db: path.join(dir, 'emulator.sqlite') })]);
  let prism;
  let quiet;
  try {
    const documentFile = path.join(dir, 'openapi.json');
    fs.writeFileSync(documentFile, await (await fetch(`${emulator.url}/openapi.json`)).text());
    prism = await startPrism(documentFile, []);
    quiet = await startPrism(documentFile, ['-v', 'warn']);
    for (const p of [prism, quiet])
      if (typeof p === 'string')
        return report({ id: 15, what, skip: `Prism cannot serve svc's OpenAPI document: ${p}`, target: 1.5, better: 'higher', unit: '×' });

    // The same requests to both; `Prefer` picks Prism's 201 example (svc ignores the header).
    const svcLoad = createLoad(emulator, { headers: { ...createLoad(emulator).headers, prefer: 'code=201' } });
    const prismLoad = { ...svcLoad, url: `${prism.url}/v1/partner/invoices` };
    const quietLoad = { ...svcLoad, url: `${quiet.url}/v1/partner/invoices` };
    for (const warm of [svcLoad, prismLoad, quietLoad]) await load({ ...warm, duration: 2 });
    const svc = [];
    const peer = [];
    const peerQuiet = [];
    for (let i = 0; i < turns; i++) {
      svc.push(await load(svcLoad));
      peer.push(await load(prismLoad));
      peerQuiet.push(await load(quietLoad));
    }
    const mean = (runs) => runs.reduce((s, r) => s + r.rps, 0) / runs.length;
    const non2xx = (runs) => runs.reduce((s, r) => s + r.non2xx + r.errors, 0);
    if (non2xx(peer) > 0 || non2xx(peerQuiet) > 0 || peer.every((r) => r.total === 0)) {
      return report({
        id: 15,
        what,
        skip: `Prism answered ${non2xx(peer)} of its requests with an error (${JSON.stringify(peer[0].statusCodes)}), so its rate is not a create rate`,
        target: 1.5,
        better: 'higher',
        unit: '×',
      });
    }
    report({
      id: 15,
      what,
      value: mean(svc) / mean(peer),
      target: 1.5,
      better: 'higher',
      unit: '×',
      detail: `svc ${Math.round(mean(svc))} vs Prism ${Math.round(mean(peer))} req/s (${turns} turns each), non-2xx svc ${non2xx(svc)}, Prism 0; Prism with \`-v warn\`: ${Math.round(mean(peerQuiet))} req/s, svc ${(mean(svc) / mean(peerQuiet)).toFixed(2)}× of it`,
    });
  } finally {
    for (const p of [prism, quiet]) if (p && typeof p !== 'string') await p.stop();
    await emulator.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** true, or why Prism is not there. Installs it into bench/.peer once (npm install --prefix). */
function ensurePrism() {
  if (fs.existsSync(PRISM_BIN)) return Promise.resolve(true);
  fs.mkdirSync(PEER_DIR, { recursive: true });
  const manifest = path.join(PEER_DIR, 'package.json');
  if (!fs.existsSync(manifest)) fs.writeFileSync(manifest, '{ "private": true, "description": "bench peers, installed by bench/cases/peer.mjs" }\n');
  console.log(`installing ${PRISM} into bench/.peer for the peer row…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return new Promise((resolve) => {
    execFile(npm, ['install', '--prefix', PEER_DIR, '--no-audit', '--no-fund', '--save-exact', PRISM], { timeout: 300_000 }, (error, _stdout, stderr) => {
      if (!error && fs.existsSync(PRISM_BIN)) resolve(true);
      else resolve((stderr || error?.message || 'npm install finished without it').trim().split('\n').slice(-3).join(' '));
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Prism serving `documentFile`, once it answers; or why it did not within 60 s. */
async function startPrism(documentFile, extra) {
  const port = await freePort();
  const child = spawn(process.execPath, [PRISM_BIN, 'mock', '-h', '127.0.0.1', '-p', String(port), ...extra, documentFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output = (output + d).slice(-4000)));
  child.stderr.on('data', (d) => (output = (output + d).slice(-4000)));
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return `it exited with ${child.exitCode}: ${output.trim().split('\n').slice(-3).join(' ')}`;
    try {
      await fetch(`${url}/__emulator/health`);
      return { url, stop };
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  await stop();
  return `it did not answer within 60 s: ${output.trim().split('\n').slice(-3).join(' ')}`;
}
