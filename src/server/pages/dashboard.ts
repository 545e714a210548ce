/**
 * The dashboard's page (CONTRACT §10): a static shell; `assets/ui.js` renders every view in the
 * browser from the API and the control plane, through the typed client the package exports
 * (`/assets/client.js`, imported by ui.js, a module script), so no action has a second
 * implementation. Nothing in it comes from a request: there is nothing to escape here.
 */
export function renderDashboard(version: string): string {
  const views = [
    ['invoices', 'Invoices'],
    ['deliveries', 'Deliveries'],
    ['requests', 'Requests'],
    ['merchants', 'Merchants'],
    ['webhook', 'Webhook'],
    ['clock', 'Clock'],
    ['snapshots', 'Snapshots'],
    ['faults', 'Faults & chaos'],
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc dashboard</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/theme.css">
<link rel="stylesheet" href="/assets/ui.css">
<link rel="stylesheet" href="/assets/charts.css">
<script type="module" src="/assets/ui.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to the view</a>
<header class="topbar">
<div class="brand"><img src="/assets/favicon.svg" alt="" width="22" height="22"><strong>svc</strong> <span class="muted">emulator ${version}</span></div>
<div class="env"><label for="env">Environment</label> <select id="env"><option value="test">test</option><option value="live">live</option></select></div>
<span id="live" class="live" role="status" data-state="connecting">connecting…</span>
<nav aria-label="Views">${views.map(([id, name]) => `<a href="#/${id}" data-view="${id}">${name}</a>`).join('')}</nav>
</header>
<p id="notice" role="status" aria-live="polite"></p>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
</body>
</html>
`;
}
