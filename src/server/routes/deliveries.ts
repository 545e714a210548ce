import { attemptsOfDelivery, findDelivery, listDeliveries, type DeliveryRow } from '../../store/repos/deliveries.js';
import { findEvent } from '../../store/repos/events.js';
import { findWebhookConfig } from '../../store/repos/webhook-configs.js';
import { merchantForPartner } from '../actions/create-merchant.js';
import { ApiError } from '../api-error.js';
import { presentDelivery, presentDeliveryDetail } from '../presenters.js';
import type { AppDeps, AuthedInput, Principal, RouteDef } from '../route.js';
import { deliveryDetailSchema, deliveryList, deliveryListQuery } from '../validation/lifecycle.js';
import { parseWith } from '../validation/parse.js';
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

/** CONTRACT §5: the partner's deliveries in the key's environment. */
export const deliveryRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/partner/webhook/deliveries',
    auth: 'partner',
    doc: { summary: 'List webhook deliveries, newest first', tag: 'Webhook', query: deliveryListQuery, response: { status: 200, schema: deliveryList } },
    handle: (input: AuthedInput<undefined>, deps) => {
      const q = parseWith(deliveryListQuery, Object.fromEntries(input.query));
      const { principal } = input;
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
  },
  {
    method: 'GET',
    path: '/v1/partner/webhook/deliveries/:deliveryId',
    auth: 'partner',
    doc: {
      summary: 'One delivery with its payload and attempts',
      tag: 'Webhook',
      response: { status: 200, schema: deliveryDetailSchema },
      errors: ['delivery_not_found'],
    },
    handle: (input: AuthedInput<undefined>, deps) => ({ status: 200, body: detail(deps, deliveryFor(deps, input.principal, input.params.deliveryId!)) }),
  },
  {
    method: 'POST',
    path: '/v1/partner/webhook/deliveries/:deliveryId/resend',
    auth: 'partner',
    doc: {
      summary: 'Resend a delivery now: same envelope id, fresh signature, current URL, secret and headers',
      tag: 'Webhook',
      response: { status: 200, schema: deliveryDetailSchema },
      errors: ['delivery_not_found', 'webhook_disabled'],
    },
    handle: async (input: AuthedInput<undefined>, deps) => {
      const row = deliveryFor(deps, input.principal, input.params.deliveryId!);
      if (row.target === 'webhook') {
        const webhook = findWebhookConfig(deps.store, row.partner_id, row.environment);
        if (webhook?.enabled !== 1) {
          throw new ApiError(409, 'webhook_disabled', 'The webhook is disabled or not configured; enable it (PUT /v1/partner/webhook) to resend.');
        }
      }
      const updated = await deps.runtime.resend(row);
      return { status: 200, body: detail(deps, updated) };
    },
  },
];
