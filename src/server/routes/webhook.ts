import { findWebhookConfig } from '../../store/repos/webhook-configs.js';
import { putWebhook } from '../actions/put-webhook.js';
import { ApiError } from '../api-error.js';
import { presentWebhookConfig } from '../presenters.js';
import type { AuthedInput, RouteDef } from '../route.js';
import { putWebhookBody, webhookConfigSchema, type PutWebhookBody } from '../validation/webhook.js';

export const webhookRoutes: RouteDef[] = [
  {
    method: 'PUT',
    path: '/v1/partner/webhook',
    auth: 'partner',
    body: putWebhookBody,
    doc: {
      summary: "Create or update the partner's webhook for the key's environment",
      tag: 'Webhook',
      response: { status: 200, schema: webhookConfigSchema },
      errors: ['webhook_url_not_allowed', 'webhook_secret_required', 'webhook_secret_invalid'],
    },
    handle: (input: AuthedInput<PutWebhookBody>, deps) => ({
      status: 200,
      body: presentWebhookConfig(deps.store.tx(() => putWebhook(deps, input.principal, input.body))),
    }),
  },
  {
    method: 'GET',
    path: '/v1/partner/webhook',
    auth: 'partner',
    doc: {
      summary: "Get the partner's webhook for the key's environment",
      tag: 'Webhook',
      response: { status: 200, schema: webhookConfigSchema },
      errors: ['webhook_not_configured'],
    },
    handle: (input: AuthedInput<undefined>, deps) => {
      const row = findWebhookConfig(deps.store, input.principal.partnerId, input.principal.environment);
      if (!row)
        throw new ApiError(404, 'webhook_not_configured', `No webhook is configured for ${input.principal.environment}; PUT /v1/partner/webhook creates one.`);
      return { status: 200, body: presentWebhookConfig(row) };
    },
  },
];
