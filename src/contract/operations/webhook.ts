import { defineOperations } from '../operation.js';

/** Interface document §4.4–4.6 and CONTRACT §5: the webhook configuration and its deliveries. */
export const webhookOperations = defineOperations({
  putWebhook: {
    method: 'PUT',
    path: '/v1/partner/webhook',
    summary: "Create or update the partner's webhook for the key's environment",
    description: 'Omitting `secret` on a later update keeps the stored secret.',
    tag: 'Webhook',
    auth: 'partner',
    body: 'PutWebhookRequest',
    responses: { 200: 'WebhookConfiguration' },
    errors: ['webhook_url_not_allowed', 'webhook_secret_required', 'webhook_secret_invalid'],
  },
  getWebhook: {
    method: 'GET',
    path: '/v1/partner/webhook',
    summary: "Get the partner's webhook for the key's environment",
    tag: 'Webhook',
    auth: 'partner',
    responses: { 200: 'WebhookConfiguration' },
    errors: ['webhook_not_configured'],
  },
  listDeliveries: {
    method: 'GET',
    path: '/v1/partner/webhook/deliveries',
    summary: 'List webhook deliveries, newest first',
    tag: 'Webhook',
    auth: 'partner',
    query: 'DeliveryListQuery',
    responses: { 200: 'DeliveryList' },
    errors: ['merchant_not_found'],
  },
  getDelivery: {
    method: 'GET',
    path: '/v1/partner/webhook/deliveries/{id}',
    summary: 'One delivery with its payload and attempts',
    tag: 'Webhook',
    auth: 'partner',
    responses: { 200: 'DeliveryDetail' },
    errors: ['delivery_not_found'],
  },
  resendDelivery: {
    method: 'POST',
    path: '/v1/partner/webhook/deliveries/{id}/resend',
    summary: 'Resend a delivery now: same envelope id, fresh signature, current URL, secret and headers',
    description:
      'One immediate manual attempt. A manual attempt that succeeds marks the delivery `succeeded` and cancels its remaining automatic attempts; one that fails leaves the schedule as it was.',
    tag: 'Webhook',
    auth: 'partner',
    responses: { 200: 'DeliveryDetail' },
    errors: ['delivery_not_found', 'webhook_disabled'],
  },
});
