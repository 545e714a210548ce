import { createMerchant, merchantForPartner } from '../actions/create-merchant.js';
import type { Handlers } from '../handler.js';
import { presentMerchant } from '../presenters.js';
import { cursorOf, page } from './pagination.js';

export const merchantHandlers = {
  createMerchant: async (input, deps) => ({
    status: 201,
    body: presentMerchant(await createMerchant(deps, input.principal, input.body), deps.baseUrl()),
  }),
  listMerchants: async (input, deps) => {
    const q = input.query;
    const { partnerId, environment } = input.principal;
    const after = await cursorOf(q.startingAfter, async (id) => {
      const m = await deps.db.merchants.findMerchant(id);
      return m && m.partner_id === partnerId && m.environment === environment ? m : undefined;
    });
    const rows = await deps.db.merchants.listMerchants(partnerId, environment, { limit: q.limit, after });
    return { status: 200, body: page(rows, q.limit, (r) => presentMerchant(r, deps.baseUrl())) };
  },
  getMerchant: async (input, deps) => ({
    status: 200,
    body: presentMerchant(await merchantForPartner(deps, input.principal, input.params.id), deps.baseUrl()),
  }),
} satisfies Handlers<'createMerchant' | 'listMerchants' | 'getMerchant'>;
