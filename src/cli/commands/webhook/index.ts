import type { CommandSpec } from '../../spec.js';

export const webhookCommands: CommandSpec[] = [
  {
    name: 'webhook get',
    summary: "show the partner's webhook configuration for the key's environment",
    load: async () => (await import('./get.js')).getWebhookCommand,
  },
  {
    name: 'webhook set',
    summary: 'create or update the webhook (a secret is generated and printed once if you give none)',
    options: [
      { flags: '--url <url>', description: 'receiving endpoint (asked on a terminal when missing)' },
      { flags: '--secret <secret>', description: 'signing secret, 16–255 characters' },
      { flags: '--enable', description: 'enable deliveries' },
      { flags: '--disable', description: 'disable deliveries (events are still recorded)' },
      { flags: '--header <line>', description: "custom header 'Name: value' (repeatable)", repeatable: true },
    ],
    examples: ['svc webhook set --url http://localhost:3000/hooks', "svc webhook set --url https://example.com/hooks --secret $SECRET --header 'X-Env: staging'"],
    load: async () => (await import('./set.js')).setWebhookCommand,
  },
  {
    name: 'webhook verify',
    summary: 'check a signature offline with the exported verifyWebhook helper',
    options: [
      { flags: '--secret <secret>', description: 'the webhook secret' },
      { flags: '--signature <header>', description: 'the X-Service-Signature value (t=…,v1=…)' },
      { flags: '--payload-file <file>', description: 'the raw body (default: stdin)' },
      { flags: '--tolerance <seconds>', description: 'maximum age of the timestamp (default 300)', parse: 'int' },
    ],
    examples: ["svc webhook verify --secret $SECRET --signature 't=…,v1=…' --payload-file body.json"],
    load: async () => (await import('./verify.js')).verifyWebhookCommand,
  },
];
