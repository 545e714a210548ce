import { INVOICE_EVENT_TYPES } from '../../webhooks/envelope.js';
import { defineCommand, withHandler } from '../spec.js';

/** Every event `svc trigger` can produce: the whole catalog. */
export const TRIGGER_EVENTS = INVOICE_EVENT_TYPES;

export const devSpec = defineCommand({
  name: 'dev',
  summary: 'run the emulator in the foreground (SQLite-backed, test-environment rules)',
  description: 'Starts the whole service locally and records its base URL and keys in .svc/dev.json, where every other command finds them.',
  options: [
    { flags: '-p, --port <port>', description: 'port to listen on (0 picks a free one; default 4747)', parse: 'int' },
    { flags: '--host <host>', description: 'address to bind (default 127.0.0.1)' },
    { flags: '--db <file>', description: 'SQLite database file (default .svc/emulator.sqlite)' },
    { flags: '--memory', description: 'use a throwaway in-memory database' },
    { flags: '--reset', description: 'start with an empty database (the default keys are kept)' },
    { flags: '--fixtures <file>', description: 'apply a fixtures file once the emulator is up' },
    { flags: '--expose-control-plane', description: 'serve /__emulator/ to non-loopback clients too' },
    {
      flags: '--allowed-host <host>',
      description: 'also answer requests for this host name (LAN name, container service; `all` lifts the check)',
      repeatable: true,
    },
  ],
  examples: ['svc dev', 'svc dev --port 0 --json --memory', 'svc dev --fixtures fixtures.yaml'],
  stopsOnSignal: true,
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
  ],
  examples: ['svc trigger invoice.paid', 'svc trigger invoice.overpaid --json'],
});

export const completionSpec = defineCommand({
  name: 'completion',
  summary: 'print a shell completion script',
  args: [{ name: 'shell', description: 'bash, zsh or fish', choices: ['bash', 'zsh', 'fish'] }],
  examples: ['svc completion bash >> ~/.bashrc', 'svc completion zsh > "${fpath[1]}/_svc"', 'svc completion fish > ~/.config/fish/completions/svc.fish'],
});

export const topCommands = [
  withHandler(devSpec, async () => (await import('./dev.js')).devCommand),
  withHandler(initSpec, async () => (await import('./init.js')).initCommand),
  withHandler(statusSpec, async () => (await import('./status.js')).statusCommand),
  withHandler(openapiSpec, async () => (await import('./openapi.js')).openapiCommand),
  withHandler(triggerSpec, async () => (await import('./trigger.js')).triggerCommand),
  withHandler(completionSpec, async () => (await import('./completion.js')).completionCommand),
];
