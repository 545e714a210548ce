import { call, connect } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { getWebhookSpec } from './index.js';
import { webhookView } from '../../views/webhook.js';

/** `svc webhook get`: the partner's configuration for the key's environment (404 webhook_not_configured when none). */
export const getWebhookCommand: Handler<typeof getWebhookSpec> = async (_input, ctx) => {
  const { client } = await connect(ctx);
  const res = await call(ctx, 'Fetching the webhook', client.getWebhook());
  return { data: res.data, human: (c) => webhookView(c, res.data) };
};
