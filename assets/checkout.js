// The checkout page's only script: route switching, copy buttons, a countdown on the emulator's
// clock, live status by polling, and the test panel. No framework, no build step.
(() => {
  const $ = (id) => document.getElementById(id);
  let state = JSON.parse($('checkout-data').textContent);
  // The emulator's clock may be ahead of this browser's: keep the difference.
  let skew = Date.parse(state.now) - Date.now();
  const network = $('network');
  const token = $('token');

  const currentRoute = () =>
    state.routes.find((r) => String(r.networkId) === (network ? network.value : '') && r.token === (token ? token.value : '')) || state.routes[0];

  function fillTokens() {
    if (!network || !token) return;
    const chosen = token.value;
    const options = state.routes.filter((r) => String(r.networkId) === network.value);
    token.replaceChildren(...options.map((r) => new Option(r.token, r.token, false, r.token === chosen)));
    token.disabled = options.length < 2;
  }

  function showRoute() {
    const route = currentRoute();
    if (!route) return;
    $('route-amount').textContent = route.amount;
    $('route-token').textContent = route.token;
    $('route-chain').textContent = route.chainName;
    $('address').value = route.address;
    $('token-amount').value = route.amount;
    $('contract').textContent = route.contractAddress;
    const qr = $('qr');
    if (qr.dataset.uri !== route.uri) {
      qr.dataset.uri = route.uri;
      fetch(`/checkout/${state.id}/qr/${encodeURIComponent(route.key)}`)
        .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
        .then((svg) => {
          if (qr.dataset.uri === route.uri) qr.innerHTML = svg;
        })
        .catch(() => {});
    }
  }

  const STATUS = {
    CREATED: 'Awaiting payment',
    CONFIRMING: 'Payment detected, waiting for confirmation',
    PAID: 'Paid',
    EXPIRED: 'Expired',
  };

  function showState() {
    const status = $('status');
    const text = state.status === 'PARTIALLY_PAID' ? `Partially paid: ${state.remaining} left to pay` : STATUS[state.status] || state.status;
    if (status.textContent !== text) status.textContent = text;
    status.dataset.status = state.status;
    status.className = `status status-${state.status.toLowerCase()}`;
    $('received').textContent = state.amountReceived;
    $('amount-label').textContent = state.final ? 'Invoice amount' : 'Amount due';
    // A paid or expired invoice asks for nothing: the instructions go, the outcome takes their place.
    // Only a snapshot restore reopens one; the server then renders the instructions again.
    if (state.final) showSettled();
    else if ($('settled')) return void location.reload();
    else showRoute();
    showActions();
    tick();
  }

  /** The same section the server renders for a final invoice (src/server/pages/checkout.ts). */
  function showSettled() {
    document.querySelector('section.pay')?.remove();
    let settled = $('settled');
    if (!settled) {
      settled = document.createElement('section');
      settled.id = 'settled';
      settled.className = 'settled';
      settled.setAttribute('aria-labelledby', 'settled-title');
      document.querySelector('header.head').after(settled);
    }
    const title = Object.assign(document.createElement('h1'), { id: 'settled-title', className: 'visually-hidden', textContent: 'Outcome' });
    const outcome = Object.assign(document.createElement('p'), { id: 'outcome', className: 'outcome', textContent: state.outcome });
    const note = Object.assign(document.createElement('p'), { className: 'muted', textContent: 'Nothing more is due: do not send anything to this invoice.' });
    const parts = [title, outcome, note];
    if (state.payments.length) {
      const list = Object.assign(document.createElement('ul'), { id: 'payments', className: 'payments' });
      list.setAttribute('aria-label', 'Payments received');
      for (const p of state.payments) {
        list.append(
          Object.assign(document.createElement('li'), { textContent: `${p.amount} ${p.token} on ${p.chainName}${p.confirmed ? '' : ' (not confirmed)'}` }),
        );
      }
      parts.push(list);
    }
    settled.replaceChildren(...parts);
  }

  /** Test-panel buttons that cannot apply are disabled, with the reason in their title and listed below. */
  function showActions() {
    const reasons = $('test-reasons');
    if (!reasons) return;
    const items = [];
    document.querySelectorAll('[data-action]').forEach((button) => {
      const why = state.unavailable[button.dataset.action];
      button.disabled = Boolean(why);
      if (why) {
        button.title = why;
        button.setAttribute('aria-describedby', 'test-reasons');
        const li = document.createElement('li');
        li.textContent = `${button.textContent}: ${why}`;
        items.push(li);
      } else {
        button.removeAttribute('title');
        button.removeAttribute('aria-describedby');
      }
    });
    reasons.replaceChildren(...items);
  }

  function tick() {
    const el = $('countdown');
    if (state.status === 'PAID') return void (el.textContent = 'paid');
    if (state.status === 'EXPIRED') return void (el.textContent = 'expired');
    const left = Math.max(0, Math.floor((Date.parse(state.expiresAt) - (Date.now() + skew)) / 1000));
    const h = Math.floor(left / 3600);
    const m = Math.floor((left % 3600) / 60);
    const s = left % 60;
    const mmss = `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
    el.textContent = `expires in ${h ? `${h}:` : ''}${mmss}`;
  }

  function accept(next) {
    state = next;
    skew = Date.parse(state.now) - Date.now();
    showState();
  }

  async function refresh() {
    try {
      const res = await fetch(`/checkout/${state.id}/state`, { cache: 'no-store' });
      if (res.ok) accept(await res.json());
    } catch {
      // The emulator may be restarting: try again at the next tick.
    }
  }

  if (network)
    network.addEventListener('change', () => {
      fillTokens();
      showRoute();
    });
  if (token) token.addEventListener('change', showRoute);
  document.querySelectorAll('button.copy').forEach((button) => {
    button.addEventListener('click', async () => {
      const value = $(button.dataset.copy).value;
      try {
        await navigator.clipboard.writeText(value);
        button.textContent = 'Copied';
      } catch {
        $(button.dataset.copy).select();
        button.textContent = 'Press Ctrl-C';
      }
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    });
  });
  document.querySelectorAll('[data-action]').forEach((button) => {
    button.addEventListener('click', async () => {
      const route = currentRoute();
      const body = { networkId: route.networkId, token: route.token };
      if (button.dataset.action === 'confirm') body.paymentId = state.pending[0]?.id;
      const result = $('test-result');
      button.disabled = true;
      try {
        const res = await fetch(`/checkout/${state.id}/test/${button.dataset.action}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const json = await res.json();
        if (res.ok) {
          accept(json);
          result.textContent = `${button.textContent}: done.`;
        } else result.textContent = `${button.textContent}: ${json.error.message}`;
      } finally {
        button.disabled = false;
        showState();
      }
    });
  });

  fillTokens();
  showState();
  setInterval(tick, 1000);
  setInterval(refresh, 1000);
})();
