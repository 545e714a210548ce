// The checkout page's "Pay from a test wallet" (svc dev --chains, CONTRACT §14): sends a real transfer
// on the local chain of the network and token selected on the page. The page's own script
// (checkout.js) shows the status as it changes.
(() => {
  const panel = document.getElementById('wallet-panel');
  const button = document.getElementById('pay-wallet');
  const result = document.getElementById('wallet-result');
  const data = document.getElementById('checkout-data');
  if (!panel || !button || !result || !data) return;
  const state = JSON.parse(data.textContent);
  const local = (panel.dataset.networks || '').split(',').filter(Boolean).map(Number);
  const network = document.getElementById('network');
  const token = document.getElementById('token');

  /** The selected route: the page's selects, or the invoice's first route. */
  function selected() {
    const first = state.routes[0] || {};
    return { networkId: network ? Number(network.value) : first.networkId, token: token ? token.value : first.token };
  }

  function update() {
    const { networkId } = selected();
    const onChain = local.includes(networkId);
    button.disabled = !onChain || state.final;
    button.title = onChain ? '' : 'This network has no local chain: use the simulated payments above.';
  }

  button.addEventListener('click', async () => {
    button.disabled = true;
    result.textContent = 'Sending…';
    try {
      const res = await fetch(`/checkout/${state.id}/test/wallet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(selected()),
      });
      const json = await res.json();
      if (res.ok) {
        result.textContent = `Sent ${json.amount} ${json.token}: transaction ${json.txHash}. The invoice is ${json.invoiceStatus}.`;
        // Nothing more is due: another click would overpay.
        if (json.invoiceStatus === 'PAID' || json.invoiceStatus === 'EXPIRED') state.final = true;
      } else result.textContent = `Pay from a test wallet: ${json.error.message}`;
    } catch (error) {
      result.textContent = `Pay from a test wallet: ${error}`;
    } finally {
      update();
    }
  });
  if (network) network.addEventListener('change', update);
  update();
})();
