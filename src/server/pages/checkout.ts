import { TEST_ACTION_LABELS as ACTION_LABELS } from '../../domain/test-actions.js';
import { type CheckoutRoute, type CheckoutState, TEST_ACTIONS } from './checkout-state.js';
import { html, jsonForScript, page, trusted, type SafeHtml } from './html.js';

const STATUS_TEXT: Record<string, string> = {
  CREATED: 'Awaiting payment',
  CONFIRMING: 'Payment detected, waiting for confirmation',
  PARTIALLY_PAID: 'Partially paid',
  PAID: 'Paid',
  EXPIRED: 'Expired',
};

export function statusText(state: Pick<CheckoutState, 'status' | 'remaining'>): string {
  if (state.status === 'PARTIALLY_PAID') return `Partially paid: ${state.remaining} left to pay`;
  return STATUS_TEXT[state.status] ?? state.status;
}

/**
 * The QR code of a route's payment URI, as inline SVG (generated here, so trusted markup). qrcode
 * (and the PNG encoder it brings) is loaded with the first page that shows one, not with the emulator.
 */
export async function qrSvg(uri: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#111111', light: '#ffffff' } });
}

/**
 * The hosted checkout page: white-label, server-rendered, with a small script that keeps the status
 * and countdown live. Works without the script for reading; the test panel needs it.
 */
export async function renderCheckout(state: CheckoutState, testMode: boolean, extra?: SafeHtml): Promise<string> {
  const first = state.routes[0];
  const networks = [...new Map(state.routes.map((r) => [r.networkId, r.chainName])).entries()];
  const tokens = first ? state.routes.filter((r) => r.networkId === first.networkId) : [];
  // A final invoice asks for nothing: no address, QR code or amount to send is even in the page.
  const qr = first && !state.final ? await qrSvg(first.uri) : '';
  const body = html`
<header class="head">
  <p class="label" id="amount-label">${state.final ? 'Invoice amount' : 'Amount due'}</p>
  <p class="amount"><span id="amount">${state.amount}</span> <span class="currency">USD</span></p>
  ${state.referenceId ? html`<p class="muted">Reference <span id="reference">${state.referenceId}</span></p>` : ''}
  <p id="status" class="status status-${state.status.toLowerCase()}" role="status" aria-live="polite" data-status="${state.status}">${statusText(state)}</p>
  <p class="muted">Received <span id="received">${state.amountReceived}</span> USD · <span id="countdown" data-expires-at="${state.expiresAt}" data-now="${state.now}">expires ${state.expiresAt}</span></p>
</header>
${state.final ? settledSection(state) : first ? routeSection(state, networks, tokens, first, qr) : html`<p>No payment route is available for this invoice.</p>`}
${testMode ? testPanel(state) : ''}
${extra ?? ''}
<script type="application/json" id="checkout-data">${jsonForScript(state)}</script>`;
  return page({ title: `Pay ${state.amount} USD`, body, script: 'checkout.js' });
}

function routeSection(state: CheckoutState, networks: [number, string][], tokens: CheckoutRoute[], route: CheckoutRoute, qr: string): SafeHtml {
  return html`
<section class="pay" aria-labelledby="pay-title">
  <h1 id="pay-title" class="visually-hidden">Payment</h1>
  <div class="choices">
    <label for="network">Network</label>
    <select id="network" name="network"${networks.length === 1 ? ' disabled' : ''}>
      ${networks.map(([id, name]) => html`<option value="${id}">${name}</option>`)}
    </select>
    <label for="token">Token</label>
    <select id="token" name="token"${tokens.length === 1 ? ' disabled' : ''}>
      ${tokens.map((t) => html`<option value="${t.token}">${t.token}</option>`)}
    </select>
  </div>
  ${state.locked ? html`<p class="muted">This invoice accepts only this payment route.</p>` : ''}
  <p class="instruction">Send <strong><span id="route-amount">${route.amount}</span> <span id="route-token">${route.token}</span></strong> on <span id="route-chain">${route.chainName}</span> to:</p>
  <div class="qr" id="qr" role="img" aria-label="QR code of the payment request" data-uri="${route.uri}">${trusted(qr)}</div>
  <div class="field">
    <label for="address">Deposit address</label>
    <div class="copy-row">
      <input id="address" readonly value="${route.address}" spellcheck="false">
      <button type="button" class="copy" data-copy="address" aria-label="Copy the deposit address">Copy</button>
    </div>
  </div>
  <div class="field">
    <label for="token-amount">Amount in token</label>
    <div class="copy-row">
      <input id="token-amount" readonly value="${route.amount}">
      <button type="button" class="copy" data-copy="token-amount" aria-label="Copy the amount">Copy</button>
    </div>
  </div>
  <p class="muted small">Token contract <code id="contract">${route.contractAddress}</code></p>
</section>`;
}

/** What a PAID or EXPIRED invoice shows instead of the payment instructions. */
function settledSection(state: CheckoutState): SafeHtml {
  return html`
<section class="settled" id="settled" aria-labelledby="settled-title">
  <h1 id="settled-title" class="visually-hidden">Outcome</h1>
  <p id="outcome" class="outcome">${state.outcome ?? ''}</p>
  <p class="muted">Nothing more is due: do not send anything to this invoice.</p>
  ${
    state.payments.length
      ? html`<ul id="payments" class="payments" aria-label="Payments received">${state.payments.map(
          (p) => html`<li>${p.amount} ${p.token} on ${p.chainName}${p.confirmed ? '' : ' (not confirmed)'}</li>`,
        )}</ul>`
      : ''
  }
</section>`;
}

/** The panel's buttons, disabled with their reason (title, and listed under them) where they cannot apply. */
function testPanel(state: CheckoutState): SafeHtml {
  const reasons = TEST_ACTIONS.filter((a) => state.unavailable[a]);
  return html`
<section class="test-panel" aria-labelledby="test-title">
  <h2 id="test-title">Test mode: simulate</h2>
  <p class="muted small">Only in the test environment. These drive the same code as the test-helper API, so events and webhooks follow.</p>
  <div class="buttons">
    ${TEST_ACTIONS.map((a) => {
      const why = state.unavailable[a];
      return why
        ? html`<button type="button" data-action="${a}" disabled title="${why}" aria-describedby="test-reasons">${ACTION_LABELS[a]}</button>`
        : html`<button type="button" data-action="${a}">${ACTION_LABELS[a]}</button>`;
    })}
  </div>
  <ul id="test-reasons" class="reasons small">${reasons.map((a) => html`<li>${ACTION_LABELS[a]}: ${state.unavailable[a]!}</li>`)}</ul>
  <p id="test-result" class="small" role="status" aria-live="polite"></p>
</section>`;
}

export function notFoundPage(what: string): string {
  return page({ title: 'Not found', body: html`<h1>Not found</h1><p>${what}</p>` });
}
