import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, resolveConfig } from '../../config/load.js';
import { UserError } from '../../errors.js';
import type { EmulatorEvent } from '../../server/events.js';
import { type Emulator, startWithoutSchemas } from '../../server/start.js';
import { runChild, signalExitCode } from '../child.js';
import type { Context } from '../context.js';
import { humanDevLine } from '../output/dev-events.js';
import { esc } from '../output/escape.js';
import { styleFor } from '../output/style.js';
import type { CommandOutput, Handler } from '../spec.js';
import { applyFlags, exportTarget, readyEvent, refuseChainsOnPostgres, startFrom } from './dev.js';
import { chooseStorage, passwordInFlagWarning, storageOption } from './storage.js';
import type { execSpec } from './top.js';
import { errorCode, errorMessage } from '../../domain/caught.js';

/**
 * `svc exec [svc dev options] -- <command> [args…]` (CONTRACT §9): starts an emulator, applies
 * `--fixtures`, runs the command with the `SVC_*` variables set, stops the emulator and exits with
 * the command's code. CI's one line, after firebase's `emulators:exec`.
 *
 * - Its own defaults, whatever the config file says: a free port and a throwaway database, so that it
 *   never collides with a `svc dev` running in the folder; it never writes `.svc/dev.json` either
 *   (the command finds the emulator in its environment, which takes precedence over that file).
 * - Quiet: stdout and stderr are the command's. The emulator's unexpected errors still reach stderr
 *   (`[svc] …`), its request lines do with `--verbose`, and `--log <file>` keeps everything as NDJSON.
 * - A failed start, or fixtures that fail, exit 1 with svc's error and the command never runs.
 */
export const execCommand: Handler<typeof execSpec> = async ({ args, options: opts }, ctx) => {
  const loaded = await loadConfig({ cwd: ctx.cwd, explicitPath: ctx.globals.config });
  for (const warning of loaded.warnings) ctx.stderr.write(`warning: ${warning}\n`);
  const exposedPassword = passwordInFlagWarning(opts.database);
  if (exposedPassword) ctx.stderr.write(`warning: ${exposedPassword}\n`);
  const config = applyFlags({ ...resolveConfig(loaded.file), port: 0 }, opts);
  // Never the config file's database: a throwaway run must not touch the folder's emulator's.
  const storage = chooseStorage(ctx.cwd, opts, undefined, ':memory:');
  refuseChainsOnPostgres(config, storage);
  // Opened before the emulator starts: a log that cannot be written is refused before anything runs.
  const log = opts.log === undefined ? null : openLog(path.resolve(ctx.cwd, opts.log));
  const exportOnExit = exportTarget(ctx.cwd, opts.exportOnExit);

  const startEmulator = startWithoutSchemas;
  let emulator: Emulator;
  try {
    emulator = await startEmulator({
      port: config.port,
      host: config.host,
      ...storageOption(storage),
      owner: 'svc exec',
      config,
      reset: opts.reset === true,
      ...(config.publicUrl === null ? {} : { publicUrl: config.publicUrl }),
      ...startFrom(ctx.cwd, opts.snapshot, exportOnExit),
      ...(exportOnExit === undefined ? {} : { exportOnExit }),
      onEvent: reporter(ctx, log),
    });
  } catch (error) {
    log?.close();
    throw error;
  }
  // A folder of our own (mode 0700) for the fixtures' output, removed when the command ends.
  const scratch = opts.fixtures === undefined ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'svc-exec-'));
  const fixturesOutput = scratch === null ? undefined : path.join(scratch, 'fixtures.json');
  try {
    log?.write(readyEvent(emulator, loaded.filepath, undefined, storage, emulator.chains ? await emulator.chains.list() : null));
    if (opts.fixtures !== undefined && fixturesOutput !== undefined)
      await seed(opts.fixtures, fixturesOutput, { emulator, controlToken: config.controlToken }, ctx, log);
    // Ctrl-C or SIGTERM while the emulator started: the command never runs.
    if (ctx.signal.aborted) return stopped(signalExitCode(ctx.signal.reason), log);

    const outcome = await runChild(args.command, {
      env: commandEnv(ctx.env, { url: emulator.url, keys: emulator.keys, controlToken: config.controlToken }, fixturesOutput),
      cwd: ctx.cwd,
    });
    if (!outcome.started) {
      const c = styleFor(ctx.color);
      if (ctx.json)
        ctx.stdout.write(
          `${JSON.stringify({ error: { code: outcome.exitCode === 127 ? 'command_not_found' : 'command_not_executable', message: outcome.message } }, null, 2)}\n`,
        );
      ctx.stderr.write(`${c.red('error')} ${esc(outcome.message)}\n`);
    }
    return stopped(outcome.exitCode, log);
  } finally {
    // Only the export can make a stop fail for a reason the user can act on: exit 1 naming the file.
    await emulator.stop().catch((error: unknown) => {
      if (exportOnExit === undefined) throw error;
      throw new UserError(`cannot export the state to ${exportOnExit}: ${errorMessage(error)}`, 'export_failed');
    });
    log?.close();
    if (scratch !== null) fs.rmSync(scratch, { recursive: true, force: true });
  }
};

/**
 * What the command finds in its environment (the rest is inherited): the test keys under the names
 * every svc command and SDK reads, the live ones beside them, the control token when there is one,
 * and where the fixtures' output is.
 */
type EnvKeys = Record<'test' | 'live', { partnerKey: string; merchantKey: string; merchantId: string }>;

export function commandEnv(
  inherited: NodeJS.ProcessEnv,
  emulator: { url: string; keys: EnvKeys; controlToken?: string | null },
  fixturesOutput: string | undefined,
): NodeJS.ProcessEnv {
  const { test, live } = emulator.keys;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    SVC_BASE_URL: emulator.url,
    SVC_PARTNER_KEY: test.partnerKey,
    SVC_MERCHANT_KEY: test.merchantKey,
    SVC_MERCHANT_ID: test.merchantId,
    SVC_LIVE_PARTNER_KEY: live.partnerKey,
    SVC_LIVE_MERCHANT_KEY: live.merchantKey,
    SVC_LIVE_MERCHANT_ID: live.merchantId,
  };
  // A control token guards loopback clients too (CONTRACT §8): the command's svc calls send it.
  if (emulator.controlToken) env.SVC_CONTROL_TOKEN = emulator.controlToken;
  // An inherited one would name another run's file.
  if (fixturesOutput === undefined) delete env.SVC_FIXTURES_OUTPUT;
  else env.SVC_FIXTURES_OUTPUT = fixturesOutput;
  return env;
}

/** `--fixtures`: applied before the command runs; its `--json` document goes to the file the command is told of. */
async function seed(file: string, output: string, to: { emulator: Emulator; controlToken: string | null }, ctx: Context, log: Log | null): Promise<void> {
  const { applyFixtureFile } = await import('./fixtures/run.js');
  const { emulator, controlToken } = to;
  const target = {
    baseUrl: emulator.url,
    partnerKey: emulator.keys.test.partnerKey,
    merchantKey: emulator.keys.test.merchantKey,
    ...(controlToken === null ? {} : { controlToken }),
  };
  const result = await applyFixtureFile(path.resolve(ctx.cwd, file), target, { cwd: ctx.cwd, env: ctx.env });
  // What `svc fixtures apply --json` prints. Mode 0600: a merchant's response holds its key.
  fs.writeFileSync(output, `${JSON.stringify(result.responses, null, 2)}\n`, { mode: 0o600 });
  log?.write({ type: 'fixtures', file, steps: result.responses });
}

function stopped(exitCode: number, log: Log | null): CommandOutput {
  log?.write({ type: 'stopped', exitCode });
  return { streamed: true, exitCode };
}

/** Where the emulator's events go: errors always (unless --quiet), every line with --verbose, all of them to --log. */
function reporter(ctx: Context, log: Log | null) {
  return (event: EmulatorEvent) => {
    log?.write(event);
    if (ctx.quiet || (!ctx.verbose && event.type !== 'error')) return;
    const c = styleFor(ctx.color);
    const line = humanDevLine(event, c);
    if (line) ctx.stderr.write(`${c.dim('[svc]')} ${line}\n`);
  };
}

interface Log {
  write(event: object): void;
  close(): void;
}

/** `--log <file>`: NDJSON, the lines `svc dev --json` prints; written synchronously so a crash loses none. Mode 0600: the ready line holds keys. */
function openLog(file: string): Log {
  let fd: number;
  try {
    fd = fs.openSync(file, 'w', 0o600);
  } catch (error) {
    throw new UserError(`--log ${file}: cannot write it (${errorCode(error) ?? errorMessage(error)})`, 'log_not_writable');
  }
  try {
    // The mode given to open applies only to a new file: an existing one (0644) kept its mode, and
    // the keys went into a file every local user could read (issue 22). Emptied by open, so nothing
    // was readable before this. Regular files only: `--log /dev/stderr` or /dev/null are not ours to change.
    if (fs.fstatSync(fd).isFile()) fs.fchmodSync(fd, 0o600);
  } catch (error) {
    fs.closeSync(fd);
    throw new UserError(`--log ${file}: cannot make it private (${errorCode(error) ?? errorMessage(error)})`, 'log_not_writable');
  }
  let open = true;
  return {
    write: (event) => {
      if (open) fs.writeSync(fd, `${JSON.stringify(event)}\n`);
    },
    close: () => {
      if (open) fs.closeSync(fd);
      open = false;
    },
  };
}
