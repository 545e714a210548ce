import type { Readable, Writable } from 'node:stream';
import { isatty } from 'node:tty';
import type { GlobalOptions } from './spec.js';
import { printNow, stdIsTTY, stdStream } from './output/std.js';

/** Options every command accepts (commander's global options), typed from their specs. */
export type { GlobalOptions } from './spec.js';

/** What a command handler may use; nothing else reaches the terminal or the environment. */
export interface Context {
  readonly globals: GlobalOptions;
  /** The command being run, as typed after `svc` (`invoices get`), for messages. */
  readonly command: string;
  /**
   * Aborted when the user asks the CLI to stop (Ctrl-C, SIGTERM): main.ts owns the signal handlers
   * and the exit; long-running commands (dev, listen, tail) stop cleanly when it aborts.
   */
  readonly signal: AbortSignal;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /**
   * Colour on a TTY or with FORCE_COLOR; never with --no-color or NO_COLOR (colourWanted). Worked out
   * when first read: the TTY check loads node:tty, which a command printing JSON never needs.
   */
  readonly color: boolean;
  /** Prompts are allowed: a TTY on both ends and no --json. */
  readonly interactive: boolean;
  /** Read only by commands that take data on stdin (`webhook verify`); check `stdinIsTTY` first. */
  readonly stdin: Readable;
  readonly stdinIsTTY: boolean;
  /** Made when first read (./output/std.ts). */
  readonly stdout: Writable;
  readonly stderr: Writable;
  /**
   * Writes to stdout what a command prints once (its one document, `svc dev`'s ready line), without
   * making the stream for it (./output/std.ts); lines that keep coming go through `stdout`.
   */
  print(text: string): void;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export interface ContextInput {
  globals: GlobalOptions;
  command?: string;
  /** Default: one that never aborts (tests running a handler in-process). */
  signal?: AbortSignal;
  stdout?: Writable & { isTTY?: boolean };
  stderr?: Writable & { isTTY?: boolean };
  stdin?: Readable;
  stdinIsTTY?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export function createContext(input: ContextInput): Context {
  const stdoutIsTTY = () => (input.stdout ? input.stdout.isTTY === true : stdIsTTY(1));
  const env = input.env ?? process.env;
  const json = input.globals.json === true;
  // process.stdin is built on first read (a stream over the file, pipe or terminal: ~4 ms of a
  // command's start); only `webhook verify` reads it, so the TTY check asks the descriptor instead,
  // when first asked: node:tty is ~1 ms of a start, and most commands never prompt.
  let stdinIsTTY = input.stdinIsTTY;
  const stdinTTY = () => (stdinIsTTY ??= input.stdin ? 'isTTY' in input.stdin && input.stdin.isTTY === true : isatty(0));
  let color: boolean | undefined;
  return {
    globals: input.globals,
    command: input.command ?? '',
    signal: input.signal ?? new AbortController().signal,
    json,
    quiet: input.globals.quiet === true,
    verbose: input.globals.verbose === true,
    get color() {
      color ??= input.globals.color !== false && colourWanted(env, stdoutIsTTY());
      return color;
    },
    get interactive() {
      return !json && stdoutIsTTY() && stdinTTY();
    },
    get stdin() {
      return input.stdin ?? process.stdin;
    },
    get stdinIsTTY() {
      return stdinTTY();
    },
    get stdout() {
      return input.stdout ?? stdStream(1);
    },
    get stderr() {
      return input.stderr ?? stdStream(2);
    },
    print: (text) => {
      if (input.stdout) input.stdout.write(text);
      else printNow(1, text);
    },
    cwd: input.cwd ?? process.cwd(),
    env,
  };
}

/**
 * Whether the environment wants colour. NO_COLOR (any value but empty) turns it off, always, as its
 * convention asks and as svc always did; FORCE_COLOR, as Node and chalk read it, turns it on off a
 * terminal (a CI log that shows colours), set to anything but `0` or `false` (empty included), and off
 * on one with those two; otherwise a terminal has it. `--no-color` is checked before, and wins over both.
 */
export function colourWanted(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return isTTY;
}
