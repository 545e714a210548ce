/**
 * Reliability: the disk fills up under `svc dev` (issue 10; CONTRACT §8 "Disk full").
 *
 * `svc dev` runs as a child process under a file size limit (RLIMIT_FSIZE, set with util-linux's
 * `prlimit`, no root needed): once its log reaches the limit, every write fails in the kernel, as on
 * a full disk or quota (SQLite reports SQLITE_IOERR_WRITE; a full filesystem gives SQLITE_FULL, which
 * the integration test `storage-full` covers with `max_page_count`). Creates are sent until one is
 * refused:
 *
 * - the refusal is 507 `storage_full`, and every later write too; reads still answer;
 * - `GET /__emulator/health` answers 503 `{"status":"degraded","reason":…}`;
 * - the limit is lifted (as when space is freed): the next create answers 201, health is `ok` again;
 * - every create answered 201 is there, no refused one is (its key creates anew: 201, not a replay),
 *   and the process never died.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { ReadyEvent } from './lib/dev-process.js';
import { answered, PlainClient } from './lib/plain-client.js';

const dir = tempDir('svc-disk-full-');
const LIMIT_BYTES = 2 * 1024 * 1024;
let child: ChildProcess | undefined;
afterAll(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
});

/** `svc dev --json` under a file size limit; resolves with its ready event and its stdout lines. */
async function devUnderLimit(bytes: number, db: string): Promise<{ ready: ReadyEvent; lines: string[]; exited: Promise<number | null> }> {
  // `prlimit … CMD` sets the limit and execs CMD: the child's pid is the emulator's.
  child = spawn('prlimit', [`--fsize=${bytes}:unlimited`, process.execPath, BIN, 'dev', '--json', '--port', '0', '--db', db], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const lines: string[] = [];
  const ready = await new Promise<ReadyEvent>((resolve, reject) => {
    readline.createInterface({ input: child!.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('{"type":"ready"')) resolve(JSON.parse(line) as ReadyEvent);
    });
    void exited.then(() => reject(new Error(`svc dev exited before it was ready: ${stderr}`)));
  });
  return { ready, lines, exited };
}

describe('the database cannot grow any more', () => {
  it('writes answer 507, health says degraded, and both recover when space comes back', async () => {
    const { ready, lines, exited } = await devUnderLimit(LIMIT_BYTES, path.join(dir, 'emulator.sqlite'));
    const client = new PlainClient(ready.baseUrl);
    const key = ready.test.merchantKey;
    const call = async (method: string, route: string, options: Parameters<PlainClient['call']>[2] = {}) =>
      answered(await client.call(method, route, options), `${method} ${route}`);
    // A long reference makes each invoice a few hundred bytes: each commit adds a few pages to the log.
    const body = (i: number) => ({ amount: '1.00', referenceId: `disk-full-${i}-${'x'.repeat(200)}` });

    const acknowledged: string[] = [];
    let refusedKey = '';
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 50_000 && !refused; i++) {
      const reply = await call('POST', '/v1/invoices', { key, body: body(i), idempotencyKey: `full-${i}` });
      if (reply.status === 201) acknowledged.push(reply.body.id);
      else {
        refused = reply;
        refusedKey = `full-${i}`;
      }
    }
    expect(refused?.status).toBe(507);
    expect(refused?.body).toEqual({ error: { code: 'storage_full', message: expect.any(String) } });
    expect(acknowledged.length).toBeGreaterThan(10);

    const again = await call('POST', '/v1/invoices', { key, body: body(-1), idempotencyKey: 'full-again' });
    expect(again.status).toBe(507);
    const health = await call('GET', '/__emulator/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'degraded', reason: expect.stringMatching(/cannot be written/) });
    expect((await call('GET', `/v1/invoices/${acknowledged.at(-1)}`, { key })).status).toBe(200);

    // Space comes back.
    execFileSync('prlimit', ['--pid', String(child!.pid), '--fsize=unlimited:unlimited']);
    const retried = await call('POST', '/v1/invoices', { key, body: body(Number(refusedKey.slice(5))), idempotencyKey: refusedKey });
    expect(retried.status).toBe(201);
    acknowledged.push(retried.body.id);
    const healthy = await call('GET', '/__emulator/health');
    expect(healthy.status).toBe(200);
    expect(healthy.body.status).toBe('ok');

    const listed = new Set<string>();
    for (let after: string | undefined; ; ) {
      const page = await call('GET', `/v1/invoices?limit=100${after ? `&startingAfter=${after}` : ''}`, { key });
      for (const invoice of page.body.data as { id: string }[]) listed.add(invoice.id);
      if (!page.body.hasMore) break;
      after = (page.body.data as { id: string }[]).at(-1)!.id;
    }
    expect([...listed].sort()).toEqual([...acknowledged].sort());
    console.log(`[disk-full] ${acknowledged.length - 1} creates stored before the limit; 507 from then on; recovered after the limit was lifted`);
    expect(child!.exitCode).toBeNull();
    const errors = lines.filter((l) => l.startsWith('{"type":"error"'));
    console.log(`[disk-full] ${errors.length} error events, e.g. ${errors[0]?.slice(0, 160) ?? '(none)'}`);
    child!.kill('SIGINT');
    expect(await exited).toBe(0);
    await client.close();
  });
});
