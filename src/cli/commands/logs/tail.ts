import { ServiceUnreachableError } from '../../../client/errors.js';
import { limitText, Reconnector, reconnectPolicy, sleep } from '../../../client/reconnect.js';
import { openSse, type SseStream } from '../../../client/sse.js';
import { esc } from '../../output/escape.js';
import { styleFor } from '../../output/style.js';
import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import { requestLine } from '../../views/request.js';
import { isFatal, parseJson } from '../webhook/deliveries/attempt-stream.js';
import { requestLineFieldsOf } from './journal-message.js';
import type { tailLogsSpec } from './index.js';
import { errorMessage } from '../../../domain/caught.js';

/**
 * `svc logs tail`: follows the emulator's request journal stream (`GET /__emulator/requests/stream`)
 * until Ctrl-C or SIGTERM (exit 0), one line per request (NDJSON with --json). When the stream drops
 * it says so and reconnects under the CLI's reconnect policy; past its limit, exit 3.
 */
export const tailLogsCommand: Handler<typeof tailLogsSpec> = async ({ options }, ctx) => {
  const { client, target } = await connect(ctx);
  // The journal is the emulator's: a remote deployment has none (a clear error, not a hang).
  await controlPlane(ctx, target, 'Checking the emulator', client.getHealth({ timeoutMs: 3000 }));
  const query = {
    method: options.method,
    path: options.path,
    status: options.status,
    invoiceId: options.invoice,
    // The dashboard's own calls (its tables refreshing) would bury the user's: out unless --all.
    fromDashboard: options.all ? undefined : 'false',
  };
  const url = client.url('streamRequests', { query });
  const c = styleFor(ctx.color);
  const policy = reconnectPolicy(ctx.env);
  const reconnector = new Reconnector(policy);
  const origin = new URL(url).origin;
  let everConnected = false;

  while (!ctx.signal.aborted) {
    let stream: SseStream | null = null;
    const close = () => stream?.close();
    ctx.signal.addEventListener('abort', close, { once: true });
    let reason = 'the emulator closed the stream';
    try {
      // Stop reading while stdout does not drain: backpressure from `less` to the emulator.
      stream = await openSse(
        url,
        '',
        (message) => {
          if (message.event === 'ready') {
            const outage = reconnector.connected();
            if (!everConnected && !ctx.json && !ctx.quiet)
              ctx.stderr.write(`${c.dim(`Tailing API requests on the emulator at ${esc(target.baseUrl)} · Ctrl-C to stop`)}\n`);
            else if (outage)
              ctx.stderr.write(`${c.yellow(`reconnected to ${origin} (requests answered meanwhile are in svc's journal: GET /__emulator/requests)`)}\n`);
            everConnected = true;
          } else if (message.event === 'request') {
            const entry = parseJson(message.data);
            const fields = requestLineFieldsOf(entry);
            // A message of another shape is said, not thrown: one bad line must not end a long tail.
            if (fields) ctx.stdout.write(`${ctx.json ? JSON.stringify(entry) : requestLine(c, fields)}\n`);
            else ctx.stderr.write(`${c.yellow(esc(`ignored a malformed request message from the emulator: ${message.data.slice(0, 200)}`))}\n`);
          } else if (message.event === 'overflow') {
            reason = 'this terminal read too slowly and the emulator dropped the stream; requests answered meanwhile are in GET /__emulator/requests';
          }
        },
        { sink: ctx.stdout, headers: client.controlHeaders() },
      );
      await stream.done;
    } catch (error) {
      if (ctx.signal.aborted) break;
      if (isFatal(error) || !everConnected) throw error;
      reason = error instanceof ServiceUnreachableError ? error.reason : errorMessage(error);
    } finally {
      ctx.signal.removeEventListener('abort', close);
      stream?.close();
    }
    if (ctx.signal.aborted) break;
    const next = reconnector.failed();
    if (next.giveUp) throw new ServiceUnreachableError(origin, `no stream for ${limitText(policy)} (${reason}); giving up`);
    if (next.attempt === 1) ctx.stderr.write(`${c.yellow(`lost the stream from ${origin} (${esc(reason)}); reconnecting…`)}\n`);
    await sleep(next.delayMs, ctx.signal);
  }
  return { streamed: true, exitCode: 0 };
};
