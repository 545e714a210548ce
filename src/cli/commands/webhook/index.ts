import { DELIVERY_STATUSES } from '../../../contract/enums.js';
import { INVOICE_EVENT_TYPES } from '../../../webhooks/envelope.js';
import { defineCommand, defineOptions, withHandler } from '../../spec.js';
import { listOptions } from '../shared-options.js';

const deliveryFilters = defineOptions([
  { flags: '--status <status>', description: 'only deliveries in this status', choices: DELIVERY_STATUSES },
  { flags: '--event-type <type>', description: 'only this event type', choices: INVOICE_EVENT_TYPES },
  { flags: '--invoice <invoiceId>', description: "only this invoice's deliveries" },
]);

export const getWebhookSpec = defineCommand({
  name: 'webhook get',
  summary: "show the partner's webhook configuration for the key's environment",
});

export const setWebhookSpec = defineCommand({
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
});

export const verifyWebhookSpec = defineCommand({
  name: 'webhook verify',
  summary: 'check a signature offline with the exported verifyWebhook helper',
  options: [
    { flags: '--secret <secret>', description: 'the webhook secret' },
    { flags: '--signature <header>', description: 'the X-Service-Signature value (t=…,v1=…)' },
    { flags: '--payload-file <file>', description: 'the raw body (default: stdin)' },
    { flags: '--tolerance <seconds>', description: 'maximum age of the timestamp (default 300)', parse: 'int' },
  ],
  examples: ["svc webhook verify --secret $SECRET --signature 't=…,v1=…' --payload-file body.json"],
});

export const listenSpec = defineCommand({
  name: 'webhook listen',
  summary: 'forward webhooks to your app: a listener on the local emulator, a cloudflared tunnel to a remote service',
  description:
    'Against the local emulator, registers an extra delivery target (your webhook configuration is left alone) and forwards each delivery, signed with a stable listener secret. Against a remote deployment (test keys only), starts a local relay behind a cloudflared quick tunnel, points the test webhook at it, and restores the previous configuration on exit.',
  options: [
    { flags: '--forward-to <target>', description: 'where to forward: 3000, localhost:3000/hooks, or a full URL' },
    { flags: '--events <types>', description: 'only these event types, comma-separated (e.g. invoice.paid,invoice.expired)' },
    { flags: '--header <line>', description: "header 'Name: value' added when forwarding (repeatable)", repeatable: true },
    { flags: '--timeout <seconds>', description: 'how long your app may take to answer (default 30)', parse: 'positive-int' },
    { flags: '--print-secret', description: 'print the signing secret and exit' },
    { flags: '--secret <secret>', description: "against a remote service: the webhook's secret, so that each delivery's signature is checked too" },
    {
      flags: '--chaos <kinds>',
      description: 'play webhook chaos while listening (local emulator): duplicate, reorder, delay, bad-signature, stale-timestamp, comma-separated',
    },
    { flags: '--chaos-seed <n>', description: 'seed of the --chaos decisions (default 0)', parse: 'int' },
    {
      flags: '--tunnel <mode>',
      description: 'auto (tunnel only for a remote service), cloudflared, or none',
      choices: ['auto', 'cloudflared', 'none'],
      defaultValue: 'auto',
    },
  ],
  examples: [
    'svc webhook listen --forward-to localhost:3000/hooks',
    'svc webhook listen --forward-to 3000 --events invoice.paid,invoice.expired',
    'svc webhook listen --print-secret',
    'svc webhook listen --forward-to 3000 --chaos duplicate,reorder',
  ],
  stopsOnSignal: true,
});

export const setChaosSpec = defineCommand({
  name: 'webhook chaos set',
  summary: "play chaos on the partner's deliveries: duplicates, reordering, delays, bad and stale signatures",
  description:
    'Replaces the chaos in force for the key’s partner and environment. Each affected attempt records `chaos`; decisions are deterministic by --seed.',
  options: [
    { flags: '--duplicate <p>', description: 'probability (0–1) that an attempt is sent twice, the same envelope id' },
    { flags: '--reorder', description: 'hold attempts back up to 1 s, so that deliveries arrive out of order' },
    { flags: '--delay <ms>', description: 'hold each attempt back: milliseconds, or a range such as 100-500' },
    { flags: '--bad-signature <p>', description: 'probability that an attempt is signed with a wrong secret' },
    { flags: '--stale-timestamp <p>', description: 'probability that the signature timestamp is 6 minutes old' },
    { flags: '--seed <n>', description: 'the same seed and events make the same decisions (default 0)', parse: 'int' },
  ],
  examples: ['svc webhook chaos set --duplicate 0.3 --reorder', 'svc webhook chaos set --bad-signature 0.1 --stale-timestamp 0.1 --seed 42'],
});

export const showChaosSpec = defineCommand({ name: 'webhook chaos show', summary: 'the webhook chaos in force' });

export const clearChaosSpec = defineCommand({ name: 'webhook chaos clear', summary: 'end the webhook chaos' });

export const listDeliveriesSpec = defineCommand({
  name: 'webhook deliveries list',
  summary: 'list webhook deliveries, newest first',
  options: [...deliveryFilters, ...listOptions],
  examples: ['svc webhook deliveries list --status failed', 'svc webhook deliveries list --invoice 5b0e… --json'],
});

export const getDeliverySpec = defineCommand({
  name: 'webhook deliveries get',
  summary: 'one delivery: its attempts, their response bodies, and the payload',
  args: [{ name: 'id', description: 'delivery id' }],
});

export const resendDeliverySpec = defineCommand({
  name: 'webhook deliveries resend',
  summary: "resend a delivery now and print the new attempt's result",
  args: [{ name: 'id', description: 'delivery id' }],
});

export const tailDeliveriesSpec = defineCommand({
  name: 'webhook deliveries tail',
  summary: 'show every delivery attempt as it happens (a stream from the emulator, polling elsewhere)',
  options: [...deliveryFilters, { flags: '--interval <seconds>', description: 'polling interval against a remote service (default 2)', parse: 'positive-int' }],
  examples: ['svc webhook deliveries tail', 'svc webhook deliveries tail --status failed --json'],
  stopsOnSignal: true,
});

export const listenersSpec = defineCommand({
  name: 'webhook listeners',
  summary: "list the partner's registered `svc webhook listen` listeners (local emulator), or remove them",
  description:
    'A listener stays registered while its listen runs, and for its 5-minute reconnect window after it vanished without stopping (killed, laptop closed). Removing one ends its waiting deliveries as failed; a running listen registers again when it reconnects. One listener per partner and environment: its id is the environment.',
  options: [
    { flags: '--remove <id>', description: 'remove this listener (its id, from the list: test or live)' },
    { flags: '--all', description: "remove every listener the key's partner has in the key's environment" },
  ],
  examples: ['svc webhook listeners', 'svc webhook listeners --json', 'svc webhook listeners --remove test', 'svc webhook listeners --all'],
});

export const webhookCommands = [
  withHandler(getWebhookSpec, async () => (await import('./get.js')).getWebhookCommand),
  withHandler(setWebhookSpec, async () => (await import('./set.js')).setWebhookCommand),
  withHandler(verifyWebhookSpec, async () => (await import('./verify.js')).verifyWebhookCommand),
  withHandler(listenSpec, async () => (await import('./listen.js')).listenCommand),
  withHandler(listenersSpec, async () => (await import('./listeners.js')).listenersCommand),
  withHandler(listDeliveriesSpec, async () => (await import('./deliveries/list.js')).listDeliveriesCommand),
  withHandler(getDeliverySpec, async () => (await import('./deliveries/get.js')).getDeliveryCommand),
  withHandler(resendDeliverySpec, async () => (await import('./deliveries/resend.js')).resendDeliveryCommand),
  withHandler(tailDeliveriesSpec, async () => (await import('./deliveries/tail.js')).tailDeliveriesCommand),
  withHandler(setChaosSpec, async () => (await import('./chaos/commands.js')).setChaosCommand),
  withHandler(showChaosSpec, async () => (await import('./chaos/commands.js')).showChaosCommand),
  withHandler(clearChaosSpec, async () => (await import('./chaos/commands.js')).clearChaosCommand),
];
