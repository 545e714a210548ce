import { attemptsOfDelivery, findDelivery, listDeliveries, type DeliveryRow } from '../../store/repos/deliveries.js';
import { findEvent } from '../../store/repos/events.js';
import { findWebhookConfig } from '../../store/repos/webhook-configs.js';
import { merchantForPartner } from '../actions/create-merchant.js';
import { putWebhook } from '../actions/put-webhook.js';
import { ApiError } from '../api-error.js';
import type { Handlers } from '../handler.js';
import { presentDelivery, presentDeliveryDetail, presentWebhookConfig } from '../presenters.js';
import type { AppDeps, Principal } from '../route.js';
import { cursorOf, page } from './pagination.js';

function deliveryFor(deps: AppDeps, principal: Principal, id: string): DeliveryRow {
  const row = findDelivery(deps.store, id);
  if (!row || row.partner_id !== principal.partnerId || row.environment !== principal.environment) {
    throw new ApiError(404, 'delivery_not_found', `No delivery ${id} for this partner in ${principal.environment}.`);
  }
  return row;
}

function detail(deps: AppDeps, row: DeliveryRow) {
  return presentDeliveryDetail(row, findEvent(deps.store, row.event_id)!.payload, attemptsOfDelivery(deps.store, row.id));
}

/** Interface §4.4–4.6, CONTRACT §5: the partner's webhook and its deliveries in the key's environment. */
export const webhookHandlers = {
  putWebhook: (input, deps) => ({ status: 200, body: presentWebhookConfig(deps.store.tx(() => putWebhook(deps, input.principal, input.body))) }),
  getWebhook: (input, deps) => {
    const row = findWebhookConfig(deps.store, input.principal.partnerId, input.principal.environment);
    if (!row)
      throw new ApiError(404, 'webhook_not_configured', `No webhook is configured for ${input.principal.environment}; PUT /v1/partner/webhook creates one.`);
    return { status: 200, body: presentWebhookConfig(row) };
  },
  listDeliveries: (input, deps) => {
    const { principal, query: q } = input;
    if (q.merchantId) merchantForPartner(deps, principal, q.merchantId, 'merchantId');
    const beforeSeq = cursorOf(q.startingAfter, (id) => {
      const row = findDelivery(deps.store, id);
      return row && row.partner_id === principal.partnerId && row.environment === principal.environment ? row : undefined;
    });
    const rows = listDeliveries(
      deps.store,
      {
        partnerId: principal.partnerId,
        environment: principal.environment,
        status: q.status,
        eventType: q.eventType,
        invoiceId: q.invoiceId,
        merchantId: q.merchantId,
      },
      { limit: q.limit, beforeSeq },
    );
    return { status: 200, body: page(rows, q.limit, presentDelivery) };
  },
  getDelivery: (input, deps) => ({ status: 200, body: detail(deps, deliveryFor(deps, input.principal, input.params.id)) }),
  resendDelivery: async (input, deps) => {
    const row = deliveryFor(deps, input.principal, input.params.id);
    if (row.target === 'webhook') {
      const webhook = findWebhookConfig(deps.store, row.partner_id, row.environment);
      if (webhook?.enabled !== 1) {
        throw new ApiError(409, 'webhook_disabled', 'The webhook is disabled or not configured; enable it (PUT /v1/partner/webhook) to resend.');
      }
    }
    const updated = await deps.runtime.resend(row);
    return { status: 200, body: detail(deps, updated) };
  },
} satisfies Handlers<'putWebhook' | 'getWebhook' | 'listDeliveries' | 'getDelivery' | 'resendDelivery'>;
