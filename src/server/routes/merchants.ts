import { findMerchant, listMerchants } from '../../store/repos/merchants.js';
import { createMerchant, merchantForPartner } from '../actions/create-merchant.js';
import type { Handlers } from '../handler.js';
import { presentMerchant } from '../presenters.js';
import { cursorOf, page } from './pagination.js';

export const merchantHandlers = {
  createMerchant: (input, deps) => ({ status: 201, body: presentMerchant(createMerchant(deps, input.principal, input.body), deps.baseUrl()) }),
  listMerchants: (input, deps) => {
    const q = input.query;
    const { partnerId, environment } = input.principal;
    const beforeSeq = cursorOf(q.startingAfter, (id) => {
      const m = findMerchant(deps.store, id);
      return m && m.partner_id === partnerId && m.environment === environment ? m : undefined;
    });
    const rows = listMerchants(deps.store, partnerId, environment, { limit: q.limit, beforeSeq });
    return { status: 200, body: page(rows, q.limit, (r) => presentMerchant(r, deps.baseUrl())) };
  },
  getMerchant: (input, deps) => ({ status: 200, body: presentMerchant(merchantForPartner(deps, input.principal, input.params.id), deps.baseUrl()) }),
} satisfies Handlers<'createMerchant' | 'listMerchants' | 'getMerchant'>;
