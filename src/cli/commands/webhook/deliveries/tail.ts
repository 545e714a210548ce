import { ApiRefusedError, ServiceUnreachableError } from '../../../../client/errors.js';
import { limitText, Reconnector, reconnectPolicy, sleep, type ReconnectPolicy } from '../../../../client/reconnect.js';
import type { ThrowingClient } from '../../../../client/throwing.js';
import type { Context } from '../../../context.js';
import { esc } from '../../../output/escape.js';
import { styleFor } from '../../../output/style.js';
import { connect } from '../../../service.js';
import type { Handler } from '../../../spec.js';
import type { tailDeliveriesSpec } from '../index.js';
import { attemptLine, type AttemptLine } from '../../../views/delivery.js';
import { AttemptPoller } from './attempt-poller.js';
import type { InvoiceEventType } from '../../../../contract/enums.js';
import { followStream, isFatal, type TailSink } from './attempt-stream.js';
import { errorMessage } from '../../../../domain/caught.js';

interface TailFilters {
  status?: string | undefined;
  eventType?: InvoiceEventType | undefined;
  invoiceId?: string | undefined;
}

/**
 * `svc webhook deliveries tail`: one line per delivery attempt as it happens, until Ctrl-C or SIGTERM
 * (exit 0). Against the emulator (it answers `GET /__emulator/health`) it follows the attempt stream;
 * anywhere else it polls the public deliveries list every `--interval` seconds (see AttemptPoller).
 * Human lines or NDJSON (`AttemptLine`, the same shape in both modes) on stdout; what is tailed, and
 * connection trouble, on stderr.
 */
export const tailDeliveriesCommand: Handler<typeof tailDeliveriesSpec> = async ({ options }, ctx) => {
  const filters: TailFilters = {
    status: options.status,
    eventType: options.eventType,
    invoiceId: options.invoice,
  };
  const intervalSeconds = options.interval ?? 2;
  const reconnect = reconnectPolicy(ctx.env);
  const { client, target } = await connect(ctx);
  // key() throws a clear user error (connect's missingKey) when there is no partner key.
  const key = client.key('partner')!;
  const emulator = await isEmulator(client);

  // Stops on Ctrl-C / SIGTERM (ctx.signal, main.ts), and when tail ends for any other reason.
  const controller = new AbortController();
  const stop = () => controller.abort();
  ctx.signal.addEventListener('abort', stop, { once: true });
  if (ctx.signal.aborted) stop();
  const sink = createSink(ctx, filters.status, () =>
    emulator
      ? `Tailing webhook delivery attempts on the emulator at ${target.baseUrl}${describe(filters)} · Ctrl-C to stop`
      : `Polling ${target.baseUrl} for webhook delivery attempts every ${intervalSeconds} s${describe(filters)} · Ctrl-C to stop`,
  );
  const poller = new AttemptPoller(client, filters);
  try {
    if (emulator) {
      const catchUp = catchUpAfterDrops(poller, controller.signal, sink);
      await followStream({
        url: client.url('streamDeliveryAttempts', { query: { ...filters } }),
        key,
        headers: client.controlHeaders(),
        signal: controller.signal,
        // The poller learns from the stream too, so a catch-up does not report an attempt again.
        sink: {
          ...sink,
          attempt: (line) => {
            poller.observe(line);
            sink.attempt(line);
          },
        },
        connected: catchUp.prepare,
        catchUp: catchUp.run,
        reconnect,
      });
    } else {
      await pollLoop(poller, { intervalSeconds, reconnect }, controller.signal, sink, target.baseUrl);
    }
  } finally {
    ctx.signal.removeEventListener('abort', stop);
    controller.abort();
  }
  return { streamed: true, exitCode: 0 };
};

/** The emulator answers its health check; a real deployment answers 404 (or 403 from afar). */
async function isEmulator(client: ThrowingClient): Promise<boolean> {
  try {
    await client.getHealth({ timeoutMs: 3000 });
    return true;
  } catch (error) {
    if (error instanceof ApiRefusedError) return false;
    throw error;
  }
}

/**
 * Prints attempts once each (the stream and a catch-up poll may both report one), applying the
 * status filter (the stream applies it already; polling cannot ask the API for "status after this
 * attempt").
 */
function createSink(ctx: Context, status: string | undefined, banner: () => string): TailSink {
  const c = styleFor(ctx.color);
  const printed = new Map<string, number>();
  return {
    attempt(line: AttemptLine) {
      if ((printed.get(line.deliveryId) ?? 0) >= line.attempt) return;
      printed.set(line.deliveryId, line.attempt);
      if (status && line.status !== status) return;
      ctx.stdout.write(`${ctx.json ? JSON.stringify(line) : attemptLine(c, line)}\n`);
    },
    ready() {
      if (!ctx.json && !ctx.quiet) ctx.stderr.write(`${c.dim(esc(banner()))}\n`);
    },
    // Connection trouble is said in every mode: stderr is free even with --json.
    notice(text: string) {
      ctx.stderr.write(`${c.yellow(esc(text))}\n`);
    },
  };
}

/**
 * The emulator's stream has no replay: attempts made while tail was disconnected are found with the
 * poller, whose baseline is taken as soon as the stream is first open (retried a few times: the
 * connection may be flaky just then). Without a baseline, tail says it cannot show them.
 */
function catchUpAfterDrops(poller: AttemptPoller, signal: AbortSignal, sink: TailSink) {
  let ready = false;
  let taking: Promise<void> | null = null;
  const prepare = () => {
    taking ??= (async () => {
      for (let i = 0; i < 5 && !signal.aborted && !ready; i++) {
        try {
          await poller.baseline();
          ready = true;
        } catch {
          await sleep(1000, signal);
        }
      }
    })().finally(() => (taking = null));
  };
  const run = async () => {
    if (taking) await taking;
    if (!ready) {
      sink.notice('the attempts made while disconnected cannot be shown (the deliveries list did not answer); `svc webhook deliveries list` has them');
      prepare();
      return;
    }
    try {
      for (const line of await poller.poll()) sink.attempt(line);
    } catch (error) {
      sink.notice(`could not look up the attempts made while disconnected: ${errorMessage(error)}`);
    }
  };
  return { prepare, run };
}

/**
 * Against a remote deployment: baseline, then a poll every interval. Failed polls are retried under
 * the reconnect policy (its backoff, never more often than the interval) until its limit.
 */
async function pollLoop(
  poller: AttemptPoller,
  { intervalSeconds, reconnect }: { intervalSeconds: number; reconnect: ReconnectPolicy },
  signal: AbortSignal,
  sink: TailSink,
  baseUrl: string,
): Promise<void> {
  await poller.baseline();
  sink.ready();
  const reconnector = new Reconnector(reconnect);
  let delayMs = intervalSeconds * 1000;
  while (!signal.aborted) {
    await sleep(delayMs, signal);
    if (signal.aborted) break;
    try {
      const lines = await poller.poll();
      if (signal.aborted) break;
      if (reconnector.connected()) sink.notice(`${baseUrl} answers again`);
      delayMs = intervalSeconds * 1000;
      for (const line of lines) sink.attempt(line);
    } catch (error) {
      if (signal.aborted) break;
      if (isFatal(error)) throw error;
      const reason = error instanceof ServiceUnreachableError ? error.reason : errorMessage(error);
      const next = reconnector.failed();
      if (next.giveUp) throw new ServiceUnreachableError(baseUrl, `no answer for ${limitText(reconnect)} (${reason}); giving up`);
      if (next.attempt === 1) sink.notice(`polling ${baseUrl} failed (${reason}); retrying…`);
      delayMs = Math.max(intervalSeconds * 1000, next.delayMs);
    }
  }
}

function describe(f: TailFilters): string {
  const parts = [f.status && `status ${f.status}`, f.eventType && `event ${f.eventType}`, f.invoiceId && `invoice ${f.invoiceId}`].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}
