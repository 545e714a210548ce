import { defineOperations } from '../operation.js';

const control = { tag: 'Emulator control plane', control: true, extension: true, auth: 'partner' } as const;

/** CONTRACT §9 webhook chaos: per partner (the key's) and environment (the key's). */
export const chaosOperations = defineOperations({
  putWebhookChaos: {
    ...control,
    method: 'PUT',
    path: '/__emulator/webhook-chaos',
    summary: "Play chaos on the partner's webhook deliveries: duplicates, reordering, delays, bad and stale signatures",
    description:
      'Decisions are deterministic by `seed`; each affected attempt records `chaos` (comma-separated kinds). Replaces the chaos in force. Bad and stale signatures apply to the webhook, not to `svc webhook listen` (which signs what it forwards itself).',
    body: 'WebhookChaosRequest',
    responses: { 200: 'WebhookChaos' },
  },
  getWebhookChaos: {
    ...control,
    method: 'GET',
    path: '/__emulator/webhook-chaos',
    summary: 'The webhook chaos in force',
    responses: { 200: 'WebhookChaos' },
  },
  deleteWebhookChaos: {
    ...control,
    method: 'DELETE',
    path: '/__emulator/webhook-chaos',
    summary: 'End the webhook chaos',
    responses: { 204: { description: 'Ended (or there was none).' } },
  },
});
