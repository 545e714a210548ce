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
<link rel="stylesheet" href="/assets/ui.css">
<script type="module" src="/assets/ui.js"></script>
</head>
<body>
<header>
<strong>svc</strong> <span class="dim">emulator ${version}</span>
<label class="env">environment <select id="env"><option value="test">test</option><option value="live">live</option></select></label>
<span id="live" class="dim" aria-live="polite">connecting…</span>
</header>
<nav aria-label="Views">${views.map(([id, name]) => `<a href="#/${id}" data-view="${id}">${name}</a>`).join('')}</nav>
<p id="notice" role="status" aria-live="polite"></p>
<main id="main" tabindex="-1"><p class="dim">Loading…</p></main>
</body>
</html>
`;
}
