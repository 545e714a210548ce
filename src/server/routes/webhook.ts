import type { DeliveryRow } from '../../store/repos/deliveries.js';
import { merchantForPartner } from '../actions/create-merchant.js';
import { putWebhook } from '../actions/put-webhook.js';
import { ApiError } from '../api-error.js';
import type { Handlers } from '../handler.js';
import { presentDelivery, presentDeliveryDetail, presentWebhookConfig } from '../presenters.js';
import type { AppDeps, Principal } from '../route.js';
import { cursorOf, page } from './pagination.js';

async function deliveryFor(deps: AppDeps, principal: Principal, id: string): Promise<DeliveryRow> {
  const row = await deps.db.deliveries.findDelivery(id);
  if (!row || row.partner_id !== principal.partnerId || row.environment !== principal.environment) {
    throw new ApiError(404, 'delivery_not_found', `No delivery ${id} for this partner in ${principal.environment}.`);
  }
  return row;
}

async function detail(deps: AppDeps, row: DeliveryRow) {
  const [event, attempts] = await Promise.all([deps.db.events.findEvent(row.event_id), deps.db.deliveries.attemptsOfDelivery(row.id)]);
  return presentDeliveryDetail(row, event!.payload, attempts);
}

/** Interface §4.4–4.6, CONTRACT §5: the partner's webhook and its deliveries in the key's environment. */
export const webhookHandlers = {
  putWebhook: async (input, deps) => ({ status: 200, body: presentWebhookConfig(await putWebhook(deps, input.principal, input.body)) }),
  getWebhook: async (input, deps) => {
    const row = await deps.db.webhookConfigs.findWebhookConfig(input.principal.partnerId, input.principal.environment);
    if (!row)
      throw new ApiError(404, 'webhook_not_configured', `No webhook is configured for ${input.principal.environment}; PUT /v1/partner/webhook creates one.`);
    return { status: 200, body: presentWebhookConfig(row) };
  },
  listDeliveries: async (input, deps) => {
    const { principal, query: q } = input;
    if (q.merchantId) await merchantForPartner(deps, principal, q.merchantId, 'merchantId');
    const after = await cursorOf(q.startingAfter, async (id) => {
      const row = await deps.db.deliveries.findDelivery(id);
      return row && row.partner_id === principal.partnerId && row.environment === principal.environment ? row : undefined;
    });
    const rows = await deps.db.deliveries.listDeliveries(
      {
        partnerId: principal.partnerId,
        environment: principal.environment,
        status: q.status,
        eventType: q.eventType,
        invoiceId: q.invoiceId,
        merchantId: q.merchantId,
      },
      { limit: q.limit, after },
    );
    return { status: 200, body: page(rows, q.limit, presentDelivery) };
  },
  getDelivery: async (input, deps) => ({ status: 200, body: await detail(deps, await deliveryFor(deps, input.principal, input.params.id)) }),
  resendDelivery: async (input, deps) => {
    const row = await deliveryFor(deps, input.principal, input.params.id);
    if (row.target === 'webhook') {
      const webhook = await deps.db.webhookConfigs.findWebhookConfig(row.partner_id, row.environment);
      if (webhook?.enabled !== 1) {
        throw new ApiError(409, 'webhook_disabled', 'The webhook is disabled or not configured; enable it (PUT /v1/partner/webhook) to resend.');
      }
    }
    const updated = await deps.runtime.resend(row);
    return { status: 200, body: await detail(deps, updated) };
  },
} satisfies Handlers<'putWebhook' | 'getWebhook' | 'listDeliveries' | 'getDelivery' | 'resendDelivery'>;
