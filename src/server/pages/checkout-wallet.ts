import { html, type SafeHtml } from './html.js';

/**
 * The checkout page's "Pay from a test wallet" (CONTRACT §14), beside the test panel when the
 * emulator runs local chains: a real transfer from a funded account on the selected network's chain.
 * Its own markup and script (assets/checkout-wallet.js), so the page's look stays the page's.
 */
export function walletPanel(networkIds: readonly number[]): SafeHtml {
  return html`
<section class="test-panel" id="wallet-panel" aria-labelledby="wallet-title" data-networks="${networkIds.join(',')}">
  <h2 id="wallet-title">Test mode: pay from a test wallet</h2>
  <p class="muted small">A real transaction on the local chain of the selected network: a funded test account sends what is left to pay in the selected token, the emulator sees it mined and confirms it. Tron and Solana stay simulated.</p>
  <div class="buttons"><button type="button" id="pay-wallet">Pay from a test wallet</button></div>
  <p id="wallet-result" class="small" role="status" aria-live="polite"></p>
</section>
<script src="/assets/checkout-wallet.js" defer></script>`;
}
