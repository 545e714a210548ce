import type { Style } from '../output/style.js';
import type { Merchant } from '../../contract/index.js';
import { esc } from '../output/escape.js';
import { keyValue, statusColour, table } from '../output/human.js';

export type MerchantData = Merchant;

export function merchantView(c: Style, m: MerchantData): string {
  return keyValue(c, [
    ['id', m.merchantId],
    ['name', m.name],
    ['email', m.email],
    ['tenant', m.externalTenantId],
    ['status', m.integrationStatus, (t) => statusColour(c, t)],
    ['partner', m.partnerId],
    ['bind url', m.bindUrl],
    ['created', m.createdAt],
  ]);
}

export function merchantTable(c: Style, list: { data: MerchantData[]; hasMore: boolean }): string {
  const rows = table(
    c,
    [
      { header: 'id', value: (m: MerchantData) => m.merchantId },
      { header: 'name', value: (m) => m.name },
      { header: 'tenant', value: (m) => m.externalTenantId },
      { header: 'status', value: (m) => m.integrationStatus, colour: (t) => statusColour(c, t) },
      { header: 'email', value: (m) => m.email },
    ],
    list.data,
    'no merchants',
  );
  return list.hasMore ? `${rows}\n${c.dim(`more: --starting-after ${esc(list.data.at(-1)!.merchantId)}`)}` : rows;
}
