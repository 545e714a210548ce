import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { argsForEngine, engineEnv } from './postgres-database.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'svc.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc …` to completion (the built CLI, as users run it; the e2e project builds dist/ first). */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argsForEngine(args)], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, NO_COLOR: '1', ...engineEnv(), ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A command that answers without reading stdin (a usage error, exit 2) may be gone before this
    // write: the pipe's EPIPE says nothing about the command, whose exit code and output are the result.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** A long-running `svc …` (dev, listen, tail) whose stdout is read line by line. */
export interface LiveCli {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr(): string;
  /** Resolves with the first stdout line (already seen or future) matching `test`. */
  waitForLine(test: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export function spawnCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): LiveCli {
  const child = spawn(process.execPath, [BIN, ...argsForEngine(args)], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, NO_COLOR: '1', ...engineEnv(), ...options.env },
  });
  const lines: string[] = [];
  let err = '';
  const waiters = new Set<{ test: (l: string) => boolean; resolve: (l: string) => void }>();
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters) {
      if (w.test(line)) {
        waiters.delete(w);
        w.resolve(line);
      }
    }
  });
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => err,
    exited,
    waitForLine(test, timeoutMs = 30_000) {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = { test, resolve };
        waiters.add(waiter);
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching line within ${timeoutMs} ms; stdout:\n${lines.join('\n')}\nstderr:\n${err}`));
        }, timeoutMs);
        exited.then(() => {
          if (waiters.has(waiter)) {
            clearTimeout(timer);
            waiters.delete(waiter);
            reject(new Error(`process exited before a matching line; stdout:\n${lines.join('\n')}\nstderr:\n${err}`));
          }
        });
        const done = waiter.resolve;
        waiter.resolve = (l) => {
          clearTimeout(timer);
          done(l);
        };
      });
    },
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs `svc …` inside the test process (the same program and handlers, no spawn): fast enough to
 * run every command in both output modes. Not a TTY: prompts are never allowed; stdin holds `input`.
 */
export async function runInProcess(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; signal?: AbortSignal } = {},
): Promise<RunResult> {
  const { Readable, Writable } = await import('node:stream');
  const { buildProgram } = await import('../../src/cli/program.js');
  const { CommanderError } = await import('commander');
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, done) {
        append(String(chunk));
        done();
      },
    });
  const out = sink((s) => (stdout += s));
  const err = sink((s) => (stderr += s));
  let code: number | null = 0;
  const program = buildProgram({
    setExitCode: (c) => (code = c),
    io: {
      stdout: out,
      stderr: err,
      stdin: Readable.from([Buffer.from(options.input ?? '')]),
      stdinIsTTY: false,
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      // What main.ts would abort on Ctrl-C (there is no main here).
      ...(options.signal ? { signal: options.signal } : {}),
    },
  });
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) code = error.exitCode === 0 ? 0 : 2;
    else {
      // As main.ts: a value refused while commander parses (a UsageError from svc's parsers).
      const { renderError } = await import('../../src/cli/output/render.js');
      code = renderError(error, null, err, out, args.includes('--json'));
    }
  }
  return { code, stdout, stderr };
}
