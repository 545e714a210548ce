import fs from 'node:fs';
import path from 'node:path';
import type { EmulatorConfig } from '../../config/defaults.js';
import { loadConfig, resolveConfig } from '../../config/load.js';
import { allowedHostProblem } from '../../domain/allowed-hosts.js';
import { webhookAllowProblem } from '../../domain/webhook-allow.js';
import { UsageError } from '../../errors.js';
import { devOptionsFromEnv, mergeDevOptions } from './dev-env.js';
import { chooseStorage, describeStorage, passwordInFlagWarning, type StorageChoice, storageOption } from './storage.js';
import { isLoopback } from '../../server/http/loopback.js';
import { type Emulator, startWithoutSchemas } from '../../server/start.js';
import type { Context } from '../context.js';
import { removeLocalState, writeLocalState } from '../local-emulator.js';
import { humanDevLine } from '../output/dev-events.js';
import { esc } from '../output/escape.js';
import { styleFor } from '../output/style.js';
import type { Handler, Input } from '../spec.js';
import type { devSpec } from './top.js';
import { errorMessage } from '../../domain/caught.js';
import type { LocalChainInfo } from '../../server/public-types.js';

/**
 * `svc dev`: runs the emulator in the foreground until Ctrl-C or SIGTERM. Human mode prints a banner
 * then one line per request and delivery; `--json` prints NDJSON whose first line is the ready event
 * (CONTRACT §1). Records itself in .svc/dev.json for the other commands.
 */
export const devCommand: Handler<typeof devSpec> = async ({ options: flags }, ctx) => {
  // Defaults < config file < environment (SVC_*, ./dev-env.ts) < flags.
  const opts = mergeDevOptions(devOptionsFromEnv(ctx.env), flags);
  const explicitConfig = ctx.globals.config ?? (ctx.env.SVC_CONFIG?.trim() || undefined);
  const loaded = await loadConfig({ cwd: ctx.cwd, explicitPath: explicitConfig });
  for (const warning of loaded.warnings) ctx.stderr.write(`warning: ${warning}\n`);
  // The flag's own value, not SVC_DATABASE_URL's: only the command line is everyone's to read.
  const exposedPassword = passwordInFlagWarning(flags.database);
  if (exposedPassword) ctx.stderr.write(`warning: ${exposedPassword}\n`);
  const config = applyFlags(resolveConfig(loaded.file), opts);
  const storage = chooseStorage(ctx.cwd, opts, loaded.file.database);
  refuseChainsOnPostgres(config, storage);
  const exportOnExit = exportTarget(ctx.cwd, opts.exportOnExit);

  const write = (line: string) => ctx.stdout.write(`${line}\n`);
  const startEmulator = startWithoutSchemas;
  // A database file, a claim on it, then a port: each refusal is one line and exit 1 (CONTRACT §8).
  const emulator = await startEmulator({
    port: config.port,
    host: config.host,
    ...storageOption(storage),
    owner: 'svc dev',
    config,
    reset: opts.reset === true,
    ...(config.publicUrl === null ? {} : { publicUrl: config.publicUrl }),
    ...startFrom(ctx.cwd, opts.snapshot, exportOnExit),
    ...(exportOnExit === undefined ? {} : { exportOnExit }),
    onEvent: (event) => {
      if (ctx.json) write(JSON.stringify(event));
      else if (!ctx.quiet || event.type !== 'request') {
        const line = humanDevLine(event, styleFor(ctx.color));
        if (line) write(line);
      }
    },
  });
  // Ctrl-C during start-up (ctx.signal, main.ts): stop what started, before it is announced or
  // recorded in .svc/dev.json (nothing of another process's is touched), and exit 130.
  if (ctx.signal.aborted) {
    await emulator.stop();
    return { streamed: true, exitCode: 130 };
  }
  // The control token too (mode 0600): it guards loopback clients as well (CONTRACT §8).
  const { primary } = writeLocalState(ctx.cwd, {
    baseUrl: emulator.url,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    database: describeStorage(storage),
    keys: emulator.keys,
    ...(config.controlToken === null ? {} : { controlToken: config.controlToken }),
  });
  if (primary) {
    ctx.stderr.write(
      `warning: .svc/dev.json belongs to another svc dev (pid ${primary.pid}, ${primary.baseUrl}); other commands here keep using that one while it runs, then this one (.svc/dev.${process.pid}.json)\n`,
    );
  }
  // Watched from before the ready line: whoever reads it may send SIGINT at once.
  const stopped = untilAborted(emulator, ctx, exportOnExit);

  const snapshotFile = opts.snapshot === undefined ? undefined : path.resolve(ctx.cwd, opts.snapshot);
  const chains = emulator.chains ? await emulator.chains.list() : null;
  if (ctx.json) {
    // The ready line without making stdout's stream first (../output/std.ts): what scripts wait for.
    ctx.print(`${JSON.stringify(readyEvent(emulator, loaded.filepath, snapshotFile, storage, chains))}\n`);
    for (const message of exposureWarnings(emulator, config)) write(JSON.stringify({ type: 'warning', message }));
  } else ctx.print(`${banner(emulator, storage, loaded.filepath, config, styleFor(ctx.color), snapshotFile, chains)}\n`);
  if (opts.fixtures) await seed(opts.fixtures, emulator, config.controlToken, ctx);
  return { streamed: true, exitCode: await stopped };
};

/** `--fixtures`: applied once the emulator listens; a failing step stops the emulator (exit 1). */
async function seed(file: string, emulator: Emulator, controlToken: string | null, ctx: Context): Promise<void> {
  const { applyFixtureFile, fixtureSummary } = await import('./fixtures/run.js');
  try {
    const result = await applyFixtureFile(
      path.resolve(ctx.cwd, file),
      {
        baseUrl: emulator.url,
        partnerKey: emulator.keys.test.partnerKey,
        merchantKey: emulator.keys.test.merchantKey,
        ...(controlToken === null ? {} : { controlToken }),
      },
      ctx,
    );
    if (ctx.json) ctx.stdout.write(`${JSON.stringify({ type: 'fixtures', file, steps: result.responses })}\n`);
    else ctx.stdout.write(`${fixtureSummary(result, styleFor(ctx.color))}\n`);
  } catch (error) {
    await emulator.stop();
    removeLocalState(ctx.cwd);
    throw error;
  }
}

/**
 * `--export-on-exit <file>` as an absolute path. Its folder must exist now: finding out at Ctrl-C,
 * after a session's work, would lose it.
 */
export function exportTarget(cwd: string, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  const target = path.resolve(cwd, file);
  if (!fs.statSync(path.dirname(target), { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`--export-on-exit: the folder ${path.dirname(target)} does not exist`, '--export-on-exit');
  }
  return target;
}

/**
 * `--snapshot <file>` to start from. The one file that may be missing is the one `--export-on-exit`
 * writes too (`--snapshot state.sqlite --export-on-exit state.sqlite`): the first session has none
 * yet and starts empty, as firebase's `--import` + `--export-on-exit` pair does.
 */
export function startFrom(cwd: string, snapshot: string | undefined, exportOnExit: string | undefined): { snapshot?: string } {
  if (snapshot === undefined) return {};
  const file = path.resolve(cwd, snapshot);
  if (file === exportOnExit && !fs.existsSync(file)) return {};
  return { snapshot: file };
}

/** The flags over the config file; `svc exec` applies them the same way. */
export function applyFlags(config: EmulatorConfig, options: Input<typeof devSpec>['options']): EmulatorConfig {
  return {
    ...config,
    port: options.port ?? config.port,
    host: options.host ?? config.host,
    exposeControlPlane: options.exposeControlPlane ?? config.exposeControlPlane,
    // Added to the config file's list: a flag names one more host, it does not forget the team's.
    allowedHosts: [...config.allowedHosts, ...(options.allowedHost ?? []).map(allowedHostFlag)],
    // Added to the config file's list too; each flag may itself be a comma-separated list.
    webhookAllow: [...config.webhookAllow, ...(options.webhookAllow ?? []).flatMap(webhookAllowFlag)],
    seed: options.seed === undefined ? config.seed : seedFlag(options.seed),
    clockStart: options.clockStart === undefined ? config.clockStart : clockStartFlag(options.clockStart),
    controlToken: options.controlToken === undefined ? config.controlToken : controlTokenFlag(options.controlToken),
    publicUrl: options.publicUrl === undefined ? config.publicUrl : publicUrlFlag(options.publicUrl),
    localChains: options.chains ?? config.localChains,
  };
}

/** `--chains` (config `chains: true`, SVC_CHAINS) needs SQLite: one process owns the nodes (CONTRACT §14). */
export function refuseChainsOnPostgres(config: EmulatorConfig, storage: StorageChoice): void {
  if (config.localChains && storage.kind === 'postgres') {
    throw new UsageError('--chains cannot run with --database: one svc dev owns the local chains, so they need SQLite (--db or --memory)', '--chains');
  }
}

function controlTokenFlag(value: string): string {
  if (value.length < 16 || value.length > 255)
    throw new UsageError('--control-token must be 16 to 255 characters long (SVC_CONTROL_TOKEN too)', '--control-token');
  return value;
}

function publicUrlFlag(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname.replace(/\/+$/, '') !== '' || url.search || url.hash) {
    throw new UsageError(`--public-url must be an http or https origin such as http://svc:4747, not "${value}"`, '--public-url');
  }
  return url.origin;
}

function seedFlag(value: number): number {
  if (value < 0) throw new UsageError(`--seed must be a whole number from 0, not ${value}`, '--seed');
  return value;
}

function clockStartFlag(value: string): string {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(value) || !Number.isFinite(Date.parse(value))) {
    throw new UsageError(`--clock-start must be an ISO 8601 time such as 2030-01-01T00:00:00Z, not "${value}"`, '--clock-start');
  }
  return value;
}

function webhookAllowFlag(value: string): string[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const problem = webhookAllowProblem(entry);
    if (problem) throw new UsageError(`--webhook-allow: ${problem}`, '--webhook-allow');
  }
  return entries;
}

function allowedHostFlag(value: string): string {
  const problem = allowedHostProblem(value);
  if (problem) throw new UsageError(`--allowed-host: ${problem}`, '--allowed-host');
  return value;
}

/** The first NDJSON line (CONTRACT §1), with the address bound and the config file in use (§8), and the local chains (§14). */
export function readyEvent(
  emulator: Emulator,
  configFile: string | null,
  snapshotFile: string | undefined,
  storage: StorageChoice,
  chains: LocalChainInfo[] | null = null,
) {
  const { test, live } = emulator.keys;
  // An imported file is a stranger's (CONTRACT §8): the webhook URLs it brought are named up front.
  const snapshot = emulator.imported && snapshotFile ? { snapshot: { file: snapshotFile, ...emulator.imported } } : {};
  return {
    type: 'ready',
    baseUrl: emulator.url,
    address: emulator.address,
    configFile,
    // CONTRACT §12: which engine, and where (a PostgreSQL URL without its password).
    storage: storage.kind,
    database: describeStorage(storage),
    ...snapshot,
    test: { ...test },
    live: { ...live },
    ...(chains ? { chains } : {}),
  };
}

/** The banner's lines about an imported snapshot file: the URLs it brought, and what is held. */
function importedRows(emulator: Emulator, snapshotFile: string | undefined): [string, string][] {
  if (!emulator.imported || !snapshotFile) return [];
  const { webhookUrls, heldDeliveries } = emulator.imported;
  return [
    ['Snapshot', snapshotFile],
    ...webhookUrls.map((url, i): [string, string] => [i === 0 ? 'Its webhook URLs' : '', esc(url)]),
    // Its configurations arrive disabled (CONTRACT §8): nothing goes to a URL the file chose unasked.
    ['Its webhooks', 'disabled until you enable them: svc webhook set --enable'],
    ['Held deliveries', `${heldDeliveries} (not sent until you resend them: svc webhook deliveries resend <id>)`],
  ];
}

/**
 * Bound beyond this machine (`--host 0.0.0.0`, the container image): say who can reach what. In a
 * container the published port is the only way in, and publishing it on 127.0.0.1 keeps it local.
 */
function exposureWarnings(emulator: Emulator, config: EmulatorConfig): string[] {
  const host = emulator.address.slice(0, emulator.address.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  if (isLoopback(host)) return [];
  const warnings = [`listening on ${emulator.address}, reachable from other machines on the network; anyone who reaches it can use the API keys`];
  if (config.controlToken === null && config.exposeControlPlane) {
    warnings.push(
      'the /__emulator control plane (keys, reset, clock) answers every client: publish the port on 127.0.0.1 only (docker run -p 127.0.0.1:4747:4747) or set SVC_CONTROL_TOKEN',
    );
  }
  return warnings;
}

/** The banner's lines about local chains (CONTRACT §14): each RPC URL, and the account that pays. */
function chainRows(chains: LocalChainInfo[] | null): [string, string][] {
  if (!chains?.length) return [];
  const rows = chains.map((chain, i): [string, string] => [i === 0 ? 'Local chains' : '', `${chain.rpcUrl}  (${chain.name})`]);
  const wallet = chains[0]!.accounts[0];
  if (wallet) rows.push(['Test wallet', `${wallet.address}  (svc chain pay <invoiceId>; svc chain list --json shows its key)`]);
  return rows;
}

function databaseRow(storage: StorageChoice): string {
  if (storage.kind === 'postgres') return `${describeStorage(storage)}  (PostgreSQL, shared by every svc dev on it)`;
  return storage.file === ':memory:' ? 'in memory (gone when stopped)' : storage.file;
}

function banner(
  emulator: Emulator,
  storage: StorageChoice,
  configFile: string | null,
  config: EmulatorConfig,
  c: ReturnType<typeof styleFor>,
  snapshotFile?: string,
  chains: LocalChainInfo[] | null = null,
): string {
  const { test, live } = emulator.keys;
  const rows: [string, string][] = [
    ['Base URL', emulator.url],
    ['Listening on', emulator.address],
    ['Config', configFile ?? 'none (defaults)'],
    ['Dashboard', `${emulator.url}/__emulator/ui/  (svc open)`],
    ['Checkout', `${emulator.url}/checkout/<invoiceId>`],
    ['Database', databaseRow(storage)],
    ['Test partner key', test.partnerKey],
    ['Test merchant key', `${test.merchantKey}  (merchant ${test.merchantId})`],
    ['Live partner key', live.partnerKey],
    ['Live merchant key', `${live.merchantKey}  (merchant ${live.merchantId})`],
    ...importedRows(emulator, snapshotFile),
    ...chainRows(chains),
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  // Bound beyond this machine (a config's `host: 0.0.0.0`, `--host`): say so where it cannot be missed.
  const exposed = exposureWarnings(emulator, config).map((message) => c.yellow(`warning: ${message}`));
  return [
    c.bold('svc emulator is running'),
    ...rows.map(([k, v]) => `  ${c.dim(k.padEnd(width))}  ${v}`),
    ...exposed,
    '',
    c.dim('Other svc commands in this folder use it (.svc/dev.json). Press Ctrl-C to stop.'),
    '',
  ].join('\n');
}

/**
 * Stops the emulator once `ctx.signal` aborts (Ctrl-C, SIGTERM: main.ts owns the handlers, and a
 * second Ctrl-C, which means "now"); resolves with the exit code.
 */
function untilAborted(emulator: Emulator, ctx: Context, exportOnExit: string | undefined): Promise<number> {
  return new Promise((resolve) => {
    const stop = () => {
      const signal = String(ctx.signal.reason ?? 'SIGINT');
      if (!ctx.json && !ctx.quiet) ctx.stderr.write(`\nStopping (${signal})…\n`);
      removeLocalState(ctx.cwd);
      emulator.stop().then(
        () => {
          if (exportOnExit !== undefined && !ctx.json && !ctx.quiet) ctx.stderr.write(`Exported the state to ${exportOnExit}\n`);
          if (ctx.json) ctx.stdout.write(`${JSON.stringify({ type: 'stopped', signal, ...(exportOnExit === undefined ? {} : { exported: exportOnExit }) })}\n`);
          resolve(0);
        },
        (error: unknown) => {
          // The export is the only part of a stop that fails for a reason the user can act on.
          ctx.stderr.write(`error: ${exportOnExit === undefined ? '' : `cannot export the state to ${exportOnExit}: `}${errorMessage(error)}\n`);
          resolve(1);
        },
      );
    };
    if (ctx.signal.aborted) stop();
    else ctx.signal.addEventListener('abort', stop, { once: true });
  });
}
