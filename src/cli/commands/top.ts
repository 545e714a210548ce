import { INVOICE_EVENT_TYPES } from '../../webhooks/envelope.js';
import { defineCommand, withHandler } from '../spec.js';

/** Every event `svc trigger` can produce: the whole catalog. */
export const TRIGGER_EVENTS = INVOICE_EVENT_TYPES;

export const devSpec = defineCommand({
  name: 'dev',
  summary: 'run the emulator in the foreground (SQLite-backed, or PostgreSQL with --database; test-environment rules)',
  description:
    'Starts the whole service locally and records its base URL and keys in .svc/dev.json, where every other command finds them. Every option can also be set by an SVC_* environment variable (--port: SVC_PORT, --allowed-host: SVC_ALLOWED_HOSTS, comma-separated, …): defaults < config file < environment < flags.',
  options: [
    { flags: '-p, --port <port>', description: 'port to listen on (0 picks a free one; default 4747)', parse: 'int' },
    { flags: '--host <host>', description: 'address to bind (default 127.0.0.1)' },
    { flags: '--db <file>', description: 'SQLite database file (default .svc/emulator.sqlite)' },
    { flags: '--memory', description: 'use a throwaway in-memory database' },
    { flags: '--database <url>', description: 'a PostgreSQL database (postgres://…) instead of SQLite: one sandbox shared by several svc dev processes' },
    { flags: '--reset', description: 'start with an empty database and the clock at the real time (the default keys are kept)' },
    { flags: '--fixtures <file>', description: 'apply a fixtures file once the emulator is up' },
    {
      flags: '--snapshot <file>',
      description:
        'start from a snapshot file (svc snapshot export): its data, clock and keys replace the database’s; deliveries it left pending are held until resent',
    },
    {
      flags: '--export-on-exit <file>',
      description: 'on a clean stop (Ctrl-C, SIGTERM), write the state to this file as a snapshot (--snapshot takes it back)',
    },
    {
      flags: '--seed <n>',
      description: 'derive generated ids and test keys from this seed (live keys and signing secrets stay random): the same requests give the same answers',
      parse: 'int',
    },
    { flags: '--clock-start <time>', description: 'start the clock at this ISO time, frozen unless advanced (svc time advance)' },
    { flags: '--expose-control-plane', description: 'serve /__emulator/ to non-loopback clients too' },
    { flags: '--control-token <token>', description: 'serve /__emulator/ to any client sending "Authorization: Bearer <token>" (16+ characters)' },
    { flags: '--public-url <url>', description: 'the base URL clients reach the emulator at (checkoutUrl; its host is allowed)' },
    {
      flags: '--allowed-host <host>',
      description: 'also answer requests for this host name (LAN name, container service; `all` lifts the check)',
      repeatable: true,
    },
    {
      flags: '--chains',
      description: 'run a local chain per EVM test network (anvil, optional package @foundry-rs/anvil): pay invoices with real transactions',
    },
    {
      flags: '--webhook-allow <list>',
      description:
        'listening beyond loopback, webhooks may still reach these internal hosts, addresses or CIDR ranges (comma-separated: app,10.0.0.0/8); other internal addresses are refused',
      repeatable: true,
    },
  ],
  examples: [
    'svc dev',
    'svc dev --port 0 --json --memory',
    'svc dev --fixtures fixtures.yaml',
    'svc dev --memory --snapshot bug-4711.sqlite',
    'svc dev --memory --snapshot state.sqlite --export-on-exit state.sqlite',
    'SVC_PORT=5000 SVC_MEMORY=1 svc dev',
    'svc dev --chains',
  ],
  stopsOnSignal: true,
});

/**
 * `svc exec`: the options of `svc dev` (the same flags, handled the same way: test/unit/exec.test.ts
 * holds the two lists together), with exec's own defaults, and `--log`.
 */
export const execSpec = defineCommand({
  name: 'exec',
  summary: "start an emulator, run a command against it (SVC_* variables set), stop it; exit with the command's code",
  description:
    'For CI and scripts: a throwaway emulator (in memory, on a free port) for the length of one command. The command gets SVC_BASE_URL, SVC_PARTNER_KEY, SVC_MERCHANT_KEY, SVC_MERCHANT_ID and their SVC_LIVE_… counterparts, and SVC_FIXTURES_OUTPUT with --fixtures; svc passes Ctrl-C and SIGTERM on to it. Put -- before the command.',
  args: [{ name: 'command', description: 'the command to run, then its arguments (no shell: use sh -c for one)', variadic: true }],
  options: [
    { flags: '-p, --port <port>', description: 'port to listen on (default: a free one)', parse: 'int' },
    { flags: '--host <host>', description: 'address to bind (default 127.0.0.1)' },
    { flags: '--db <file>', description: 'SQLite database file (default: a throwaway in-memory database)' },
    { flags: '--memory', description: 'use a throwaway in-memory database (the default)' },
    { flags: '--database <url>', description: 'a PostgreSQL database (postgres://…) instead of SQLite: one sandbox shared by several svc dev processes' },
    { flags: '--reset', description: 'start with an empty database and the clock at the real time (the default keys are kept)' },
    { flags: '--fixtures <file>', description: 'apply a fixtures file before the command runs; its --json output is in the file $SVC_FIXTURES_OUTPUT names' },
    {
      flags: '--snapshot <file>',
      description:
        'start from a snapshot file (svc snapshot export): its data, clock and keys replace the database’s; deliveries it left pending are held until resent',
    },
    { flags: '--export-on-exit <file>', description: 'once the command ends, write the state to this file as a snapshot (--snapshot takes it back)' },
    {
      flags: '--seed <n>',
      description: 'derive generated ids and test keys from this seed (live keys and signing secrets stay random): the same requests give the same answers',
      parse: 'int',
    },
    { flags: '--clock-start <time>', description: 'start the clock at this ISO time, frozen unless advanced (svc time advance)' },
    { flags: '--expose-control-plane', description: 'serve /__emulator/ to non-loopback clients too' },
    { flags: '--control-token <token>', description: 'serve /__emulator/ to any client sending "Authorization: Bearer <token>" (16+ characters)' },
    { flags: '--public-url <url>', description: 'the base URL clients reach the emulator at (checkoutUrl; its host is allowed)' },
    {
      flags: '--allowed-host <host>',
      description: 'also answer requests for this host name (LAN name, container service; `all` lifts the check)',
      repeatable: true,
    },
    {
      flags: '--chains',
      description: 'run a local chain per EVM test network (anvil, optional package @foundry-rs/anvil): pay invoices with real transactions',
    },
    {
      flags: '--webhook-allow <list>',
      description:
        'listening beyond loopback, webhooks may still reach these internal hosts, addresses or CIDR ranges (comma-separated: app,10.0.0.0/8); other internal addresses are refused',
      repeatable: true,
    },
    { flags: '--log <file>', description: "write the emulator's events to this file, as NDJSON (what `svc dev --json` prints)" },
  ],
  examples: ['svc exec -- npm test', 'svc exec --fixtures fixtures.yaml -- node --test', 'svc exec --log svc.ndjson -- sh -c "npm run build && npm test"'],
  forwardsSignals: true,
});

export const openSpec = defineCommand({
  name: 'open',
  summary: "open the emulator's dashboard in your browser (prints its URL when no browser can be opened)",
  examples: ['svc open', 'svc open --json'],
});

export const initSpec = defineCommand({
  name: 'init',
  summary: 'write a config file, and on request a fixtures example and a webhook receiver example',
  options: [
    { flags: '-y, --yes', description: 'accept the defaults without asking' },
    { flags: '--fixtures', description: 'also write svc.fixtures.yaml' },
    { flags: '--receiver', description: 'also write webhook-receiver.mjs (verifies signatures)' },
    { flags: '--force', description: 'overwrite files that exist' },
  ],
  examples: ['svc init', 'svc init --yes --fixtures --receiver'],
});

export const statusSpec = defineCommand({
  name: 'status',
  summary: 'which service and keys commands use, where each came from, and whether it answers',
});

export const openapiSpec = defineCommand({
  name: 'openapi',
  summary: "print the service's OpenAPI document",
  options: [{ flags: '-o, --output <file>', description: 'write it to a file instead' }],
});

export const triggerSpec = defineCommand({
  name: 'trigger',
  summary: 'create a fresh invoice and drive it until it emits the event',
  args: [{ name: 'event', description: 'the event to emit', choices: TRIGGER_EVENTS }],
  options: [
    { flags: '--merchant <merchantId>', description: 'the sub-merchant to use (default: the merchant key’s own, or the local default)' },
    { flags: '--amount <amount>', description: 'invoice amount (default 10.00)' },
    { flags: '--reference-id <ref>', description: 'the invoice’s referenceId (default "svc trigger <event>")' },
    { flags: '--network-id <id>', description: 'lock the invoice to this network; payments are made on it', parse: 'int' },
    { flags: '--token <symbol>', description: 'lock the invoice to this token (USDC, USDT); payments are made in it' },
  ],
  examples: [
    'svc trigger invoice.paid',
    'svc trigger invoice.overpaid --json',
    'svc trigger invoice.paid --network-id 84532 --token USDC --reference-id order-42',
  ],
});

export const resetSpec = defineCommand({
  name: 'reset',
  summary: 'delete all data of the running emulator (the default keys are kept); asks first',
  description:
    'Empties the emulator the command targets (POST /__emulator/reset): merchants, invoices, events, deliveries, webhook settings; the default partner and merchant keep their keys, a running `svc webhook listen` stays registered with its secret, and the clock is back at the real time (or --clock-start). On a terminal it asks for confirmation; elsewhere (scripts, CI, --json) --yes is required.',
  options: [{ flags: '-y, --yes', description: 'reset without asking (required off a terminal)' }],
  examples: ['svc reset', 'svc reset --yes --json'],
});

export const completionSpec = defineCommand({
  name: 'completion',
  summary: 'print a shell completion script',
  args: [{ name: 'shell', description: 'bash, zsh or fish', choices: ['bash', 'zsh', 'fish'] }],
  examples: ['svc completion bash >> ~/.bashrc', 'svc completion zsh > "${fpath[1]}/_svc"', 'svc completion fish > ~/.config/fish/completions/svc.fish'],
});

export const topCommands = [
  withHandler(devSpec, async () => (await import('./dev.js')).devCommand),
  withHandler(execSpec, async () => (await import('./exec.js')).execCommand),
  withHandler(initSpec, async () => (await import('./init.js')).initCommand),
  withHandler(statusSpec, async () => (await import('./status.js')).statusCommand),
  withHandler(openSpec, async () => (await import('./open.js')).openCommand),
  withHandler(openapiSpec, async () => (await import('./openapi.js')).openapiCommand),
  withHandler(triggerSpec, async () => (await import('./trigger.js')).triggerCommand),
  withHandler(resetSpec, async () => (await import('./reset.js')).resetCommand),
  withHandler(completionSpec, async () => (await import('./completion.js')).completionCommand),
];
