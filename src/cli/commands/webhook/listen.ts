import { UsageError } from '../../../errors.js';
import { parseListenChaos } from './chaos/parse.js';
import { safeEmit, type ListenEvent } from '../../../listen/events.js';
import { chooseMode, listenSecret, runListen, toFatal } from '../../../listen/index.js';
import { stateDirFor } from '../../../listen/restore.js';
import { parseEvents, parseForwardTo, parseHeaders, parseTimeout } from '../../../listen/target.js';
import { reconnectPolicy } from '../../../client/reconnect.js';
import type { Context } from '../../context.js';
import { humanListenLines } from '../../output/listen-events.js';
import { styleFor } from '../../output/style.js';
import { connect } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { listenSpec } from './index.js';

/**
 * `svc webhook listen`: runs the core in src/listen/ and renders its events: human lines, or with
 * --json one NDJSON object per event (the ListenEvent objects themselves). Ctrl-C, SIGTERM and SIGHUP
 * (ctx.signal, from main.ts) stop it cleanly (remote mode restores the webhook first) with exit 0; a
 * second Ctrl-C leaves at once, main.ts decides (a remote webhook is then repaired by the next run,
 * from its restore file). Failures end with one `fatal` event and a non-zero exit, never silently.
 */
export const listenCommand: Handler<typeof listenSpec> = async ({ options }, ctx) => {
  const printSecret = options.printSecret === true;
  const tunnelChoice = options.tunnel;
  const forwardTo = printSecret ? '' : parseForwardTo(options.forwardTo);
  const events = parseEvents(options.events);
  const headers = parseHeaders(options.header);
  const timeoutSeconds = parseTimeout(options.timeout);
  const reconnect = reconnectPolicy(ctx.env);
  const chaos = parseListenChaos(options.chaos, options.chaosSeed);

  if (printSecret) {
    const { client } = await connect(ctx);
    const { mode } = await chooseMode(tunnelChoice, client);
    const secret = await listenSecret(mode, client);
    return { data: { secret }, human: () => secret };
  }

  const render = safeEmit(renderer(ctx));
  // Stops on ctx.signal from the start (a Ctrl-C while connecting must still clean up), or on a crash.
  const controller = new AbortController();
  const onStop = () => controller.abort(ctx.signal.reason);
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
  if (ctx.signal.aborted) onStop();
  else ctx.signal.addEventListener('abort', onStop, { once: true });
  process.on('uncaughtException', onCrash).on('unhandledRejection', onCrash);
  try {
    let exitCode: number;
    try {
      const { client, target } = await connect(ctx);
      const { mode, tunnel } = await chooseMode(tunnelChoice, client);
      const common = { client, baseUrl: target.baseUrl, forwardTo, events, headers, timeoutSeconds };
      // Webhook chaos is the emulator's: for as long as listen runs, then ended (CONTRACT §9).
      if (chaos && mode !== 'local') throw new UsageError('--chaos needs the local emulator (webhook chaos is an emulator feature)', '--chaos');
      if (chaos) await client.putWebhookChaos({ body: chaos });
      try {
        exitCode = await runListen(
          mode === 'local' ? { mode, ...common, reconnect } : { mode, ...common, tunnel, stateDir: stateDirFor(ctx.cwd), env: ctx.env, secret: options.secret },
          { signal: controller.signal, emit },
        );
      } finally {
        if (chaos) await client.deleteWebhookChaos().catch(() => undefined);
      }
    } catch (error) {
      // Connecting or choosing the mode failed: the same single fatal event as any other failure.
      const fatal = toFatal(error);
      emit(fatal);
      exitCode = fatal.exitCode;
    }
    return { streamed: true, exitCode: crashed ? 1 : exitCode };
  } finally {
    ctx.signal.removeEventListener('abort', onStop);
    process.off('uncaughtException', onCrash).off('unhandledRejection', onCrash);
  }
};

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
