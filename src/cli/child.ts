import { spawn } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { constants } from 'node:os';

/**
 * What `svc exec` passes on to the command it runs: Ctrl-C, `kill`, the terminal closing, and the
 * signals a program defines for itself (SIGQUIT: a JVM's thread dump, SIGUSR1/2: log rotation, a
 * reload). SIGQUIT and SIGUSR2 used to end svc by their default action and orphan the command; SIGUSR1
 * opened Node's inspector on 127.0.0.1:9229 in svc (issue 22). main.ts keeps svc alive on them.
 */
export const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'] as const;

/** How a child process ended, and the exit code a shell would report for it. */
export type ChildOutcome =
  | { started: true; exitCode: number; signal: NodeJS.Signals | null }
  /** It never ran: 127 when there is no such command, 126 when it cannot be executed (as shells answer). */
  | { started: false; exitCode: 126 | 127; message: string };

export interface RunChildOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where stop signals arrive (default: this process); each is sent on to the child. */
  signals?: Pick<EventEmitter, 'on' | 'off'>;
}

/**
 * Runs `argv` with this process's terminal (stdio inherited) and resolves when it ends. No shell: the
 * words are the command and its arguments, as given (`sh -c '…'` is one command like any other).
 *
 * Every stop signal that reaches svc while the child runs is sent on to it, and svc keeps waiting: the
 * child decides when to stop, as under a shell or `npm run`. (In a terminal, Ctrl-C reaches the child
 * directly too, since it shares svc's process group; a `kill` of svc's pid alone does not, and that
 * is what CI runners send on a cancel.)
 */
export function runChild(argv: readonly string[], options: RunChildOptions): Promise<ChildOutcome> {
  const [command, ...args] = argv;
  if (command === undefined || command === '') return Promise.resolve({ started: false, exitCode: 127, message: 'command not found: ""' });
  const signals = options.signals ?? process;
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env: options.env, cwd: options.cwd });
    let started = false;
    const forward = (signal: NodeJS.Signals) => {
      // Already gone (exited between the signal and now): nothing to tell.
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    // From now on, not from 'spawn': a signal in between would otherwise be lost.
    for (const s of FORWARDED_SIGNALS) signals.on(s, forward);
    const unlisten = () => {
      for (const s of FORWARDED_SIGNALS) signals.off(s, forward);
    };
    child.once('spawn', () => {
      started = true;
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      // After a successful spawn, an error is a failed kill(): the child's end still comes as 'close'.
      if (started) return;
      unlisten();
      resolve({ started: false, ...notStarted(command, error) });
    });
    child.once('close', (code, signal) => {
      if (!started) return;
      unlisten();
      resolve({ started: true, exitCode: exitCodeOf(code, signal), signal });
    });
  });
}

/** A shell's exit code for a process that ended: its own code, or 128 + the number of the signal that killed it. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal) return 128 + (constants.signals[signal] ?? 0);
  return code ?? 1;
}

/** A signal's exit code as a shell reports it (SIGINT → 130, SIGTERM → 143); 130 for anything else. */
export function signalExitCode(reason: unknown): number {
  const n = typeof reason === 'string' && isSignal(reason) ? constants.signals[reason] : undefined;
  return n === undefined ? 130 : 128 + n;
}

/** A name the OS knows as a signal (its own key of `constants.signals`, not one inherited from Object). */
function isSignal(name: string): name is NodeJS.Signals {
  return Object.hasOwn(constants.signals, name);
}

function notStarted(command: string, error: NodeJS.ErrnoException): { exitCode: 126 | 127; message: string } {
  // A bare name is looked up in PATH ("command not found"); a path names one file.
  const isPath = command.includes('/') || command.includes('\\');
  if (error.code === 'ENOENT') {
    return { exitCode: 127, message: isPath ? `${command}: no such file (or its #! interpreter is missing)` : `command not found: ${command}` };
  }
  if (error.code === 'EACCES' || error.code === 'EISDIR' || error.code === 'ENOEXEC') {
    return {
      exitCode: 126,
      message: `${command}: cannot execute (${error.code === 'EACCES' ? 'permission denied' : error.code === 'EISDIR' ? 'a directory' : 'not an executable format'})`,
    };
  }
  return { exitCode: 126, message: `${command}: cannot run it (${error.code ?? error.message})` };
}
