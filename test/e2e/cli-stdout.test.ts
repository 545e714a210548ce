/**
 * What a command prints once goes out with fs.writeSync before stdout's stream exists
 * (src/cli/output/std.ts): these hold that it still arrives whole through a pipe read late, and that a
 * reader closing early is no crash. `svc openapi` prints ~0.5 MB, more than a pipe holds at once. A
 * descriptor left non-blocking (EAGAIN) cannot be made for a child from Node, whose children get their
 * stdio blocking: test/unit/std-print.test.ts has that case.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

interface Read {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs `node args…`, reading its stdout only after `pauseMs` (the pipe fills meanwhile). */
function run(args: string[], pauseMs: number): Promise<Read> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.pause();
    setTimeout(() => child.stdout.on('data', (d: Buffer) => chunks.push(d)).resume(), pauseMs);
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks), stderr }));
  });
}

/** The document as a command prints it, for comparison: its stdout read at once. */
const reference = run([BIN, 'openapi'], 0);

describe('a command’s one document on stdout', () => {
  it('arrives whole through a pipe its reader empties late', async () => {
    const expected = await reference;
    expect(expected.code).toBe(0);
    expect(expected.stdout.length).toBeGreaterThan(256 * 1024);
    expect(JSON.parse(expected.stdout.toString()).openapi).toMatch(/^3\./);

    const late = await run([BIN, 'openapi'], 400);
    expect(late).toMatchObject({ code: 0, stderr: '' });
    expect(late.stdout.equals(expected.stdout)).toBe(true);
  });

  it('is cut short by a reader that closes early, with exit 0 and nothing on stderr', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'openapi'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stdout.once('data', () => child.stdout.destroy());
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result).toEqual({ code: 0, stderr: '' });
  });
});
