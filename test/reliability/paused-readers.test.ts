/**
 * Reliability: readers that stop reading (issue 22; CONTRACT §8 "Streams are bounded"). `svc dev` in a
 * child process, 20 raw TCP clients on the request journal's stream and 2 on the dashboard's change
 * feed that read the `ready` frame and then stop reading (a `less` paused on `svc logs tail`, a
 * background tab), and a `svc logs tail --json` whose stdout pipe nobody reads. Then 1,500 creates
 * with 12 KiB bodies (each journal entry ~14 KiB). Before the fix the server kept every entry for
 * every reader (RSS 115 → 590 MiB), and the CLI read everything into its own stdout buffer.
 *
 * Now: each paused reader of the journal costs the server at most 1 MiB of unsent data; when it falls further
 * behind it gets a last `event: overflow` and the stream ends. The CLI stops reading while its stdout
 * does not drain, so the server drops it too, and it says so on stderr once stdout drains. The
 * overflow events are the assertions that can fail; RSS is measured for the figures, and bounded
 * loosely (the fixed run stays far below what the unbounded buffers took).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { freePort, startDev, type DevProcess } from './lib/dev-process.js';

const READERS = 20;
const CHANGE_READERS = 2;
const CREATES = 1500;
const CONCURRENCY = 8;
const PAD = 'p'.repeat(12 * 1024);
const MiB = 1024 * 1024;

let dev: DevProcess | undefined;
const sockets: net.Socket[] = [];
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await dev?.kill();
});

/** Resident memory of a process (Linux), in bytes. */
function rss(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) * 1024;
}

interface PausedReader {
  socket: net.Socket;
  text(): string;
  ended: Promise<void>;
}

/** A raw HTTP/1.1 client: reads until the `ready` frame, then stops reading from its socket. */
function pausedReader(port: number, path: string): Promise<PausedReader> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    const chunks: Buffer[] = [];
    let ready = false;
    const ended = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (!ready && Buffer.concat(chunks).includes('event: ready')) {
        ready = true;
        socket.pause();
        resolve({ socket, text: () => Buffer.concat(chunks).toString('utf8'), ended });
      }
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
  });
}

const toMiB = (bytes: number) => Math.round(bytes / MiB);

async function until(test: () => boolean, ceilingMs: number, what: string): Promise<void> {
  for (const end = Date.now() + ceilingMs; !test() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  expect(test(), what).toBe(true);
}

describe('readers that stop reading', () => {
  it('cost the server at most their bound, get `event: overflow` and are closed; svc logs tail stops reading a stalled stdout', async () => {
    const dir = tempDir('svc-paused-readers-');
    dev = await startDev({ cwd: dir, port: await freePort(), db: path.join(dir, 'emulator.sqlite') });
    const { baseUrl, test: keys } = dev.ready;
    const port = Number(new URL(baseUrl).port);
    const pid = dev.cli.child.pid!;

    const readers = await Promise.all(Array.from({ length: READERS }, () => pausedReader(port, '/__emulator/requests/stream')));
    const changeReaders = await Promise.all(Array.from({ length: CHANGE_READERS }, () => pausedReader(port, '/__emulator/changes')));

    // svc logs tail --json into a pipe: one line read (it is connected), then nobody reads.
    const tail = spawn(process.execPath, [BIN, 'logs', 'tail', '--json', '--base-url', baseUrl], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' },
    });
    let tailErr = '';
    tail.stderr.on('data', (d) => (tailErr += d));
    const firstLine = new Promise<void>((resolve) => tail.stdout.once('data', () => resolve()));
    const create = () =>
      dev!.client.call('POST', '/v1/invoices', { key: keys.merchantKey, idempotencyKey: `pr-${Math.random()}`, body: { amount: '1.00', pad: PAD } });
    // The CLI connects after its health check: create until it has printed a line.
    let connected = false;
    void firstLine.then(() => (connected = true));
    for (let i = 0; i < 200 && !connected; i++) {
      await create();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(connected, 'svc logs tail printed a line').toBe(true);
    tail.stdout.pause();

    const serverBefore = rss(pid);
    const tailBefore = rss(tail.pid!);
    let serverPeak = serverBefore;
    let tailPeak = tailBefore;
    let statuses = 0;
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CREATES) {
          next++;
          const reply = await create();
          if (!reply.cut && reply.status === 201) statuses++;
          if (next % 100 === 0) {
            serverPeak = Math.max(serverPeak, rss(pid));
            tailPeak = Math.max(tailPeak, rss(tail.pid!));
          }
        }
      }),
    );
    const floodMs = Date.now() - started;
    serverPeak = Math.max(serverPeak, rss(pid));
    tailPeak = Math.max(tailPeak, rss(tail.pid!));
    expect(statuses).toBe(CREATES);
    const memory = { floodMs, serverRssMiB: [serverBefore, serverPeak].map(toMiB), tailRssMiB: [tailBefore, tailPeak].map(toMiB) };
    console.log(`paused readers, memory: ${JSON.stringify(memory)}`);
    // Measured before the fix: server 78 → 941 MiB, svc logs tail 78 → 177 MiB. After: ~+90 and ~+13.
    expect(serverPeak - serverBefore).toBeLessThan(250 * MiB);
    expect(tailPeak - tailBefore).toBeLessThan(60 * MiB);

    // The paused readers read again: everything the server kept for them, then the overflow, then the end.
    for (const r of [...readers, ...changeReaders]) r.socket.resume();
    let ended = 0;
    for (const r of readers) void r.ended.then(() => ended++);
    await until(() => ended === READERS, 30_000, 'every paused journal reader was closed');
    for (const r of readers) {
      const text = r.text();
      const last = text.lastIndexOf('event: ');
      expect(text.slice(last, last + 140)).toMatch(/^event: overflow\ndata: \{"reason":"this reader fell more than 1000 messages or 1048576 bytes/);
      const delivered = text.split('event: request\n').length - 1;
      expect(delivered).toBeLessThan(CREATES);
    }
    // The change feed's frames are ~40 bytes: 1,500 of them fit in the sockets' own buffers, so the
    // server held nothing for these readers and they get every one once they read again.
    await until(() => changeReaders.every((r) => r.text().split('event: change\n').length - 1 >= CREATES), 30_000, 'the change feed readers got every change');

    // The CLI: once its stdout drains it reads on, meets the overflow, says so, and reconnects.
    let tailLines = 0;
    tail.stdout.on('data', (d: Buffer) => (tailLines += d.toString().split('\n').length - 1));
    tail.stdout.resume();
    await until(() => tailErr.includes('read too slowly'), 60_000, `svc logs tail reported the overflow (stderr: ${tailErr})`);
    tail.kill('SIGINT');
    expect(tailLines).toBeLessThan(CREATES);

    const frames = readers.map((r) => r.text().split('event: request\n').length - 1);
    console.log(`paused readers, frames: ${JSON.stringify({ journalFramesPerReader: [Math.min(...frames), Math.max(...frames)], tailLines })}`);
  });
});
