import path from 'node:path';
import { DEFAULT_DATABASE, type EmulatorConfig } from '../../config/defaults.js';
import { loadConfig, resolveConfig } from '../../config/load.js';
import type { Emulator } from '../../server/start.js';
import type { Context } from '../context.js';
import { humanDevLine } from '../output/dev-events.js';
import { styleFor } from '../output/style.js';

export interface DevOptions {
  port?: number;
  host?: string;
  db?: string;
  memory?: boolean;
  reset?: boolean;
  exposeControlPlane?: boolean;
}

/**
 * `svc dev`: runs the emulator in the foreground until Ctrl-C or SIGTERM. Human mode prints a banner
 * then one line per request; `--json` prints NDJSON whose first line is the ready event (CONTRACT §1).
 */
export async function runDev(options: DevOptions, ctx: Context): Promise<number> {
  const loaded = await loadConfig({ cwd: ctx.cwd, explicitPath: ctx.globals.config });
  for (const warning of loaded.warnings) ctx.stderr.write(`warning: ${warning}\n`);
  const config = applyFlags(resolveConfig(loaded.file), options);
  const db = options.memory ? ':memory:' : path.resolve(ctx.cwd, options.db ?? loaded.file.database ?? DEFAULT_DATABASE);

  const c = styleFor(ctx.color);
  const write = (line: string) => ctx.stdout.write(`${line}\n`);
  const { startEmulator } = await import('../../server/start.js');
  const emulator = await startEmulator({
    port: config.port,
    host: config.host,
    db,
    config,
    reset: options.reset === true,
    onEvent: (event) => {
      if (ctx.json) write(JSON.stringify(event));
      else if (!ctx.quiet || event.type !== 'request') {
        const line = humanDevLine(event, c);
        if (line) write(line);
      }
    },
  });

  if (ctx.json) write(JSON.stringify(readyEvent(emulator)));
  else write(banner(emulator, db, c));
  return waitForSignal(emulator, ctx);
}

function applyFlags(config: EmulatorConfig, options: DevOptions): EmulatorConfig {
  return {
    ...config,
    port: options.port ?? config.port,
    host: options.host ?? config.host,
    exposeControlPlane: options.exposeControlPlane ?? config.exposeControlPlane,
  };
}

export function readyEvent(emulator: Emulator) {
  const { test, live } = emulator.keys;
  return { type: 'ready', baseUrl: emulator.url, test: { ...test }, live: { ...live } };
}

function banner(emulator: Emulator, db: string, c: ReturnType<typeof styleFor>): string {
  const { test, live } = emulator.keys;
  const rows: [string, string][] = [
    ['Base URL', emulator.url],
    ['Checkout', `${emulator.url}/checkout/<invoiceId>`],
    ['Database', db === ':memory:' ? 'in memory (gone when stopped)' : db],
    ['Test partner key', test.partnerKey],
    ['Test merchant key', `${test.merchantKey}  (merchant ${test.merchantId})`],
    ['Live partner key', live.partnerKey],
    ['Live merchant key', `${live.merchantKey}  (merchant ${live.merchantId})`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return [
    c.bold('svc emulator is running'),
    ...rows.map(([k, v]) => `  ${c.dim(k.padEnd(width))}  ${v}`),
    '',
    c.dim('Press Ctrl-C to stop.'),
    '',
  ].join('\n');
}

function waitForSignal(emulator: Emulator, ctx: Context): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // A second Ctrl-C means "now": leave without waiting for requests in flight.
        process.exit(130);
      }
      stopping = true;
      if (!ctx.json && !ctx.quiet) ctx.stderr.write(`\nStopping (${signal})…\n`);
      emulator.stop().then(
        () => {
          if (ctx.json) ctx.stdout.write(`${JSON.stringify({ type: 'stopped', signal })}\n`);
          process.off('SIGINT', stop).off('SIGTERM', stop);
          resolve(0);
        },
        () => resolve(1),
      );
    };
    process.on('SIGINT', stop).on('SIGTERM', stop);
  });
}
