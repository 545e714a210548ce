import type { MerchantRow } from '../../store/repos/merchants.js';
import type { PartnerRow } from '../../store/repos/partners.js';
import { html, page } from './html.js';

/** The onboarding page at a merchant's bindUrl: one button that makes the merchant ACTIVE. */
export function renderBind(merchant: MerchantRow, partner: PartnerRow | undefined, justCompleted: boolean): string {
  const active = merchant.integration_status === 'ACTIVE';
  const body = html`
<h1>Connect your account</h1>
<p class="muted">${partner?.name ?? 'Your platform'} asks to accept payments for you.</p>
<dl class="facts">
  <dt>Merchant</dt><dd id="merchant-name">${merchant.name}</dd>
  <dt>E-mail</dt><dd>${merchant.email}</dd>
  <dt>Platform</dt><dd id="partner-name">${partner?.name ?? merchant.partner_id}</dd>
  <dt>Environment</dt><dd>${merchant.environment}</dd>
  <dt>Status</dt><dd><span id="integration-status" role="status">${merchant.integration_status}</span></dd>
</dl>
${
  active
    ? html`<p class="status status-paid">${justCompleted ? 'Onboarding complete.' : 'Onboarding is complete.'}</p>`
    : html`<form method="post" action="/bind/${merchant.id}/complete">
  <button type="submit" id="complete">Complete onboarding</button>
</form>`
}`;
  return page({ title: `Connect ${merchant.name}`, body });
}
