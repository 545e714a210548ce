/**
 * Bounded work per request (CONTRACT §8, issue 10): `svc dev` in its own process, capped at 512 MiB
 * of heap, takes waves of concurrent refused bodies: 1 MiB of `[{},{},…]` (340,000 values), wide
 * bodies on an endpoint that takes none, oversized, mistyped, deeply nested and broken bodies, with
 * valid creates in between (some at exactly 10,000 values). Before the value limit, forty wide
 * bodies at once exhausted that heap and killed the process.
 *
 * Checked: every request gets the answer the contract gives it; the process is alive and serves
 * normally afterwards; its peak heap (from V8's own `--trace-gc` lines) stays well under the cap.
 * The peak heap and RSS are printed for the README's Reliability table.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { burstAgent, httpRequest, type HttpRequest, type WireResponse } from './lib/input-http.js';

const MiB = 1024 * 1024;
const WAVES = 6;
const PER_WAVE = 80;

let child: ChildProcessWithoutNullStreams;
let port: number;
let ready: { baseUrl: string; test: { merchantKey: string } };
/** The heap in use before each collection, in MB, as `--trace-gc` reports it. */
const heapSeen: number[] = [];
let exited: number | null | undefined;
const agent = burstAgent();
const cwd = tempDir('svc-rel-wide-');

beforeAll(async () => {
  child = spawn(process.execPath, ['--max-old-space-size=512', '--trace-gc', BIN, 'dev', '--json', '--port', '0', '--memory'], {
    cwd,
    env: { ...process.env, NO_COLOR: '1' },
  });
  child.on('exit', (code, signal) => (exited = code ?? (signal ? -1 : null)));
  child.stderr.resume();
  const lines = readline.createInterface({ input: child.stdout });
  ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('svc dev did not print its ready line within 20 s')), 20_000);
    lines.on('line', (line) => {
      // `[pid:0x…]   123 ms: Scavenge 12.3 (15.0) -> 11.2 (16.0) MB, …`: the first figure is the heap in use.
      const gc = /: (?:Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Sweep)[^\d]*([\d.]+) \([\d.]+\) -> /.exec(line);
      if (gc) heapSeen.push(Number(gc[1]));
      else if (line.startsWith('{"type":"ready"')) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
  });
  port = Number(new URL(ready.baseUrl).port);
});

afterAll(async () => {
  agent.destroy();
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
});

interface Case {
  name: string;
  request: HttpRequest;
  status: number;
  code?: string;
}

const json = { 'content-type': 'application/json' };
let serial = 0;
const idem = () => `wide-${process.pid}-${++serial}`;

function cases(invoiceId: string): Case[] {
  const key = { authorization: `Bearer ${ready.test.merchantKey}` };
  const wide = Buffer.from(`[${'{},'.repeat(349_000)}{}]`);
  expect(wide.length).toBeLessThanOrEqual(MiB);
  const wideInObject = Buffer.from(`{"items":${wide.toString().slice(0, -4)}]}`);
  const create = (body: string | Buffer, headers: Record<string, string> = json): HttpRequest => ({
    method: 'POST',
    path: '/v1/invoices',
    headers: { ...key, ...headers, 'idempotency-key': idem() },
    body,
  });
  return [
    { name: 'wide array', request: create(wide), status: 413, code: 'payload_too_large' },
    { name: 'wide array in an object', request: create(wideInObject), status: 413, code: 'payload_too_large' },
    {
      name: 'wide body on an endpoint without one',
      request: { method: 'POST', path: `/v1/test_helpers/invoices/${invoiceId}/expire`, headers: { ...key, ...json }, body: wideInObject },
      status: 413,
      code: 'payload_too_large',
    },
    { name: 'over 1 MiB', request: create(Buffer.alloc(MiB + 1, 0x20)), status: 413, code: 'payload_too_large' },
    { name: '1 MiB as text/plain', request: create(wide, { 'content-type': 'text/plain' }), status: 415, code: 'unsupported_media_type' },
    { name: 'nested 5,000 deep', request: create(`${'['.repeat(5000)}${']'.repeat(5000)}`), status: 400, code: 'invalid_json' },
    { name: 'unterminated 1 MiB string', request: create(`{"amount":"${'9'.repeat(MiB - 20)}`), status: 400, code: 'invalid_json' },
    { name: 'exactly 10,000 values', request: create(JSON.stringify({ amount: '1.00', items: new Array(9_997).fill(0) })), status: 201 },
    { name: 'a plain create', request: create(JSON.stringify({ amount: '2.50' })), status: 201 },
  ];
}

function check(c: Case, res: WireResponse): string | null {
  if (res.status !== c.status) return `${c.name}: ${res.status} ${res.text.slice(0, 200)}`;
  if (c.code) {
    const code = (JSON.parse(res.text) as { error?: { code?: string } }).error?.code;
    if (code !== c.code) return `${c.name}: code ${code}`;
  }
  return null;
}

function peakRssMiB(): number | null {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return hwm ? Number(hwm[1]) / 1024 : null;
  } catch {
    return null;
  }
}

describe('wide and refused bodies against a 512 MiB heap', () => {
  it('every request gets its answer, the process survives and serves, and the heap stays small', async () => {
    const key = { authorization: `Bearer ${ready.test.merchantKey}` };
    const seed = await httpRequest(port, agent, {
      method: 'POST',
      path: '/v1/invoices',
      headers: { ...key, ...json, 'idempotency-key': idem() },
      body: '{"amount":"5.00"}',
    });
    expect(seed.status, seed.text).toBe(201);
    const invoiceId = (JSON.parse(seed.text) as { id: string }).id;
    const mix = cases(invoiceId);

    const problems: string[] = [];
    let sent = 0;
    for (let wave = 0; wave < WAVES; wave++) {
      // Wide bodies are half of every wave: 40 at once is what used to exhaust the heap.
      const plan = Array.from({ length: PER_WAVE }, (_, i) => (i % 2 === 0 ? mix[i % 4 === 0 ? 0 : 1]! : mix[2 + ((i >> 1) % (mix.length - 2))]!));
      const answers = await Promise.all(
        plan.map(async (c) => {
          const request = c.request.headers?.['idempotency-key'] ? { ...c.request, headers: { ...c.request.headers, 'idempotency-key': idem() } } : c.request;
          try {
            return check(c, await httpRequest(port, agent, request, 60_000));
          } catch (error) {
            return `${c.name}: ${(error as Error).message}`;
          }
        }),
      );
      sent += plan.length;
      problems.push(...answers.filter((p): p is string => p !== null));
      expect(exited, `svc dev exited during wave ${wave + 1}`).toBeUndefined();
      if (problems.length) break; // say what went wrong now, not after every wave timed out
    }
    expect(problems).toEqual([]);

    // Still serving normally.
    const after = await httpRequest(port, agent, { method: 'GET', path: `/v1/invoices/${invoiceId}`, headers: key });
    expect(after.status, after.text).toBe(200);
    expect(exited).toBeUndefined();

    const peakHeap = Math.max(...heapSeen);
    const peakRss = peakRssMiB();
    console.log(
      `wide bodies: ${sent} requests in ${WAVES} waves of ${PER_WAVE}; peak heap ${peakHeap.toFixed(1)} MB (${heapSeen.length} GC lines), peak RSS ${peakRss?.toFixed(1) ?? '?'} MiB`,
    );
    expect(heapSeen.length).toBeGreaterThan(0);
    // Refused bodies are never parsed: the heap stays far below the 512 MiB cap.
    expect(peakHeap).toBeLessThan(256);
  });
});
