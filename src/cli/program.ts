import { Command, InvalidArgumentError, Option } from 'commander';
import { VERSION } from '../version.js';
import { createContext, type GlobalOptions } from './context.js';

/** Parses an integer option, or fails as a usage error naming the flag. */
export function intOption(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
      // commander reports it as a usage error: "option '--port <port>' argument 'x' is invalid. …"
      throw new InvalidArgumentError(`${flag} must be a whole number, not "${value}".`);
    }
    return n;
  };
}

/** The whole command tree. Command modules are imported when their command runs, not before. */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('svc')
    .description('Run the crypto payment invoicing service locally, and drive it.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--base-url <url>', 'the service to talk to (default: the local emulator)')
    .option('--api-key <key>', 'API key to use (partner or merchant)')
    .option('--profile <name>', 'a profile from the config file')
    .option('--config <file>', 'config file (default: searched from the current folder up)')
    .option('--json', 'print one JSON document (or NDJSON for streams) on stdout')
    .option('--no-color', 'no colours (also NO_COLOR)')
    .option('-q, --quiet', 'print less')
    .option('-v, --verbose', 'print more (request ids, idempotency keys)')
    .showHelpAfterError('(add --help for usage)')
    // Before any subcommand is added: they inherit it, and only main.ts may exit.
    .exitOverride()
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true });

  const ctx = (cmd: Command) => createContext({ globals: cmd.optsWithGlobals() as GlobalOptions });

  program
    .command('dev')
    .description('run the emulator in the foreground (SQLite-backed, test-environment rules)')
    .addOption(new Option('-p, --port <port>', 'port to listen on (0 picks a free one)').argParser(intOption('--port')))
    .option('--host <host>', 'address to bind', undefined)
    .option('--db <file>', 'SQLite database file (default .svc/emulator.sqlite)')
    .option('--memory', 'use a throwaway in-memory database')
    .option('--reset', 'start with an empty database (the default keys are kept)')
    .option('--expose-control-plane', 'serve /__emulator/ to non-loopback clients too')
    .action(async (options, cmd: Command) => {
      const { runDev } = await import('./commands/dev.js');
      setExitCode(await runDev(options, ctx(cmd)));
    });

  return program;
}
