import { constants } from 'node:os';
import { EXIT, renderError } from './output/render.js';
import { stdStream } from './output/std.js';
import { ALL_COMMANDS } from './commands/index.js';
import { fastParse } from './fast-parse.js';
import { type ProgramOptions, runCommand } from './run-command.js';
import { reachableCommands } from './reachable.js';
import type { CommandSpec } from './spec.js';

/** The signals that ask `svc` to stop: Ctrl-C, `kill`, and the terminal closing. */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Signals a program defines for itself: `svc exec` passes them on (child.ts) and lives on. */
const PASSED_ON_SIGNALS: NodeJS.Signals[] = ['SIGQUIT', 'SIGUSR2'];
/** 128 + SIGINT: what a shell reports for a command interrupted by Ctrl-C. */
const INTERRUPTED = 130;

/**
 * Runs `svc` with `argv` and sets the exit code (documented in docs/cli.md): 0 success, 1 the service
 * refused or a user error, 2 usage error, 3 service unreachable. The only place that decides it, and
 * the only place that exits.
 *
 * Signals: one handler, installed before any command runs, turns SIGINT, SIGTERM and SIGHUP into
 * `ctx.signal` aborting. A command that stops cleanly on it (`stopsOnSignal`: dev, listen, tail)
 * winds down and returns its own exit code; any other command, or a second signal while one winds
 * down ("now"), ends the process at once with 130. A command that runs a child (`forwardsSignals`:
 * exec) passes every signal on to it and waits for it.
 *
 * SIGUSR1 always has a listener, which is what stops Node from opening its inspector on
 * 127.0.0.1:9229 (a debugger attached to a process holding keys, for anyone local who can signal it).
 * SIGQUIT and SIGUSR2 end any other command as their default action would (128 + the signal).
 */
export async function main(argv: string[]): Promise<void> {
  // stdout and stderr are made when first needed, each with its EPIPE handler (./output/std.ts).
  const controller = new AbortController();
  let running: CommandSpec | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    // `svc exec` passes each signal on to its child and exits when the child does, as a shell waits.
    if (running?.forwardsSignals) {
      if (!controller.signal.aborted) controller.abort(signal);
      return;
    }
    if (controller.signal.aborted || !running?.stopsOnSignal) process.exit(INTERRUPTED);
    controller.abort(signal);
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  const onPassedOn = (signal: NodeJS.Signals) => {
    if (!running?.forwardsSignals) process.exit(128 + (constants.signals[signal] ?? 0));
  };
  for (const s of PASSED_ON_SIGNALS) process.on(s, onPassedOn);
  const noInspector = () => {};
  process.on('SIGUSR1', noInspector);

  let code: number = EXIT.ok;
  const options: ProgramOptions = { setExitCode: (c) => (code = c), io: { signal: controller.signal }, onCommand: (spec) => (running = spec) };
  const commands = reachableCommands(argv, ALL_COMMANDS);
  // commander and the program it builds, loaded only for a line fast-parse.ts leaves to it.
  let program: typeof import('./program.js') | undefined;
  try {
    const parsed = fastParse(argv, commands);
    if (parsed) await runCommand(parsed.spec, parsed.input, parsed.globals, argv, options);
    else {
      program = await import('./program.js');
      await program.buildProgram(options, commands).parseAsync(argv, { from: 'user' });
    }
  } catch (error) {
    // --help and --version "fail" with exit code 0; everything else commander throws is usage.
    if (program && error instanceof program.CommanderError) {
      code = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      // Scripts reading --json still get one JSON document on stdout (commander wrote to stderr).
      if (code !== EXIT.ok && argv.includes('--json')) {
        stdStream(1).write(
          `${JSON.stringify({ error: { code: 'usage_error', message: program.svcStyleError(error.message).replace(/^error /, '') } }, null, 2)}\n`,
        );
      }
    } else code = renderError(error, null, undefined, undefined, argv.includes('--json'));
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
    for (const s of PASSED_ON_SIGNALS) process.off(s, onPassedOn);
    // SIGUSR1 keeps its listener: the process may live on a moment (open handles), inspector-free.
  }
  process.exitCode = code;
}
