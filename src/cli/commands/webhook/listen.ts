import { safeEmit, type ListenEvent } from '../../../listen/events.js';
import { chooseMode, listenSecret, runListen, toFatal, type TunnelChoice } from '../../../listen/index.js';
import { stateDirFor } from '../../../listen/restore.js';
import { parseEvents, parseForwardTo, parseHeaders, parseTimeout } from '../../../listen/target.js';
import { UsageError } from '../../../errors.js';
import type { Context } from '../../context.js';
import { humanListenLines } from '../../output/listen-events.js';
import { styleFor } from '../../output/style.js';
import { connect } from '../../service.js';
import type { Handler } from '../../spec.js';

/**
 * `svc webhook listen`: runs the core in src/listen/ and renders its events: human lines, or with
 * --json one NDJSON object per event (the ListenEvent objects themselves). Ctrl-C, SIGTERM and SIGHUP
 * stop it cleanly (remote mode restores the webhook first) with exit 0; a second Ctrl-C leaves at
 * once (a remote webhook is then repaired by the next run, from its restore file). Failures end with
 * one `fatal` event and a non-zero exit, never silently.
 */
export const listenCommand: Handler = async ({ options }, ctx) => {
  const printSecret = options.printSecret === true;
  const tunnelChoice = (options.tunnel ?? 'auto') as TunnelChoice;
  const forwardTo = printSecret ? '' : parseForwardTo(options.forwardTo as string | undefined);
  const events = parseEvents(options.events);
  const headers = parseHeaders(options.header);
  const timeoutSeconds = parseTimeout(options.timeout);
  const reconnectTimeoutMs = reconnectTimeout(ctx.env.SVC_LISTEN_RECONNECT_TIMEOUT);

  if (printSecret) {
    const { client } = await connect(ctx);
    const { mode } = await chooseMode(tunnelChoice, client);
    const secret = await listenSecret(mode, client);
    return { data: { secret }, human: () => secret };
  }

  const render = safeEmit(renderer(ctx));
  // Signals are handled from the start: a Ctrl-C while connecting must still clean up.
  const controller = new AbortController();
  // A bug that escapes the core (a throw in a callback) must not kill listen silently either: it is
  // reported as fatal and stops listen the orderly way (a remote webhook is restored), exit 1.
  let crashed = false;
  const emit = (event: ListenEvent) => {
    if (!(crashed && event.type === 'stopped')) render(event);
  };
  const onCrash = (error: unknown) => {
    if (crashed) return;
    crashed = true;
    emit(toFatal(error));
    controller.abort('crash');
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      // A second Ctrl-C means "now". A remote webhook stays pointed at the tunnel until the next run.
      process.exit(130);
    }
    controller.abort(signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  process.on('uncaughtException', onCrash).on('unhandledRejection', onCrash);
  try {
    let exitCode: number;
    try {
      const { client, target } = await connect(ctx);
      const { mode, tunnel } = await chooseMode(tunnelChoice, client);
      const common = { client, baseUrl: target.baseUrl, forwardTo, events, headers, timeoutSeconds };
      exitCode = await runListen(
        mode === 'local' ? { mode, ...common, reconnectTimeoutMs } : { mode, ...common, tunnel, stateDir: stateDirFor(ctx.cwd), env: ctx.env },
        { signal: controller.signal, emit },
      );
    } catch (error) {
      // Connecting or choosing the mode failed: the same single fatal event as any other failure.
      const fatal = toFatal(error);
      emit(fatal);
      exitCode = fatal.exitCode;
    }
    return { streamed: true, exitCode: crashed ? 1 : exitCode };
  } finally {
    for (const s of signals) process.off(s, onSignal);
    process.off('uncaughtException', onCrash).off('unhandledRejection', onCrash);
  }
};

/** `SVC_LISTEN_RECONNECT_TIMEOUT` (seconds): how long to try reconnecting before giving up (default 60). */
function reconnectTimeout(value: string | undefined): number {
  if (value === undefined || value === '') return 60_000;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`SVC_LISTEN_RECONNECT_TIMEOUT must be a positive number of seconds, not ${JSON.stringify(value)}`);
  return n * 1000;
}

function renderer(ctx: Context): (event: ListenEvent) => void {
  if (ctx.json) return (event) => ctx.stdout.write(`${JSON.stringify(event)}\n`);
  const c = styleFor(ctx.color);
  return (event) => {
    for (const line of humanListenLines(event, c)) {
      if (ctx.quiet && line.stream === 'stdout' && event.type !== 'ready' && event.type !== 'forward_failed') continue;
      (line.stream === 'stdout' ? ctx.stdout : ctx.stderr).write(`${line.text}\n`);
    }
  };
}
