import { UsageError } from '../../errors.js';
import { violationLine } from '../../fidelity/contract/exchange.js';
import { esc } from '../output/escape.js';
import { styleFor } from '../output/style.js';
import type { Handler } from '../spec.js';
import type { proxySpec } from './fidelity.js';

/** The proxy's port unless --port says: next to svc dev's 4747. */
const DEFAULT_PORT = 4748;

/**
 * `svc proxy --upstream <url>`: runs the validating proxy until Ctrl-C or SIGTERM (exit 0). With
 * --json the first line is `{"type":"ready","baseUrl","upstream"}` and each exchange a line
 * `{"type":"exchange",…}`; for people, one line per exchange. Violations are lines on stderr in
 * both modes: `violation POST /v1/invoices → 201: response /body …`.
 */
export const proxyCommand: Handler<typeof proxySpec> = async ({ options }, ctx) => {
  const upstream = options.upstream;
  if (!upstream) throw new UsageError('svc proxy needs --upstream <url>: the deployment to forward to', '--upstream');
  if (!/^https?:\/\/[^/]/i.test(upstream) || !URL.canParse(upstream))
    throw new UsageError(`--upstream must be an http or https URL, not "${upstream}"`, '--upstream');
  const c = styleFor(ctx.color);
  const { startProxy } = await import('../../fidelity/proxy/server.js');
  const proxy = await startProxy({
    upstream: upstream.replace(/\/+$/, ''),
    port: options.port ?? DEFAULT_PORT,
    ...(options.record ? { record: options.record } : {}),
    onExchange: (e) => {
      for (const v of e.violations) ctx.stderr.write(`${c.yellow(esc(violationLine(e.method, e.path, e.status, v)))}\n`);
      if (ctx.json) ctx.stdout.write(`${JSON.stringify({ type: 'exchange', ...e, durationMs: Math.round(e.durationMs * 100) / 100 })}\n`);
      else if (!ctx.quiet) {
        const count = e.violations.length ? c.yellow(` ${e.violations.length} violation${e.violations.length === 1 ? '' : 's'}`) : '';
        ctx.stdout.write(`${esc(`${e.method} ${e.path}`)} → ${e.status} ${c.dim(`(${Math.round(e.durationMs)} ms)`)}${count}\n`);
      }
    },
  });
  if (ctx.json) ctx.stdout.write(`${JSON.stringify({ type: 'ready', baseUrl: proxy.url, upstream: proxy.upstream })}\n`);
  else
    ctx.stdout.write(
      `Proxying ${proxy.url} → ${esc(proxy.upstream)}${options.record ? ` · recording to ${esc(options.record)}` : ''} ${c.dim('(^C to quit)')}\n`,
    );
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await proxy.stop();
  return { streamed: true, exitCode: 0 };
};
