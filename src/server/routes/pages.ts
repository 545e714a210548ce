import fs from 'node:fs';
import path from 'node:path';
import { addPayment, confirmPendingPayment, expireInvoiceNow } from '../actions/lifecycle.js';
import { ApiError } from '../api-error.js';
import { isUuid } from '../../domain/ids.js';
import { renderBind } from '../pages/bind.js';
import { renderDashboard } from '../pages/dashboard.js';
import { checkoutState, testAmount } from '../pages/checkout-state.js';
import { notFoundPage, qrSvg, renderCheckout } from '../pages/checkout.js';
import { walletPanel } from '../pages/checkout-wallet.js';
import type { AppDeps, RouteDef, RouteInput } from '../route.js';
import { packageRoot } from '../../package-root.js';
import { schemas } from '../validation/schemas.js';
import type { CheckoutTestBody } from './checkout-test-body.js';

// Pages are framed by nobody and load nothing from elsewhere.
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  // Nothing leaks to other sites, yet the page's own form posts carry its real Origin (with
  // no-referrer, browsers send `Origin: null`, which the cross-site check must refuse).
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

async function invoiceOrNull(deps: AppDeps, id: string) {
  return isUuid(id) ? ((await deps.db.invoices.findInvoice(id)) ?? null) : null;
}

async function testInvoice(deps: AppDeps, id: string) {
  const invoice = await invoiceOrNull(deps, id);
  if (!invoice) throw new ApiError(404, 'invoice_not_found', `No invoice ${id}.`);
  if (invoice.environment !== 'test') throw new ApiError(403, 'test_mode_only', 'The test panel only works on test invoices.');
  return invoice;
}

const JS = 'text/javascript; charset=utf-8';
/** The dashboard's modules (plain ES modules, no build): ui.js and what it imports, each named for what it holds. */
const DASHBOARD_MODULES = [
  'ui.js',
  'api.js',
  'live.js',
  'dom.js',
  'svg.js',
  'marks.js',
  'chart-minutes.js',
  'chart-latency.js',
  'chart-lanes.js',
  'view-invoices.js',
  'view-deliveries.js',
  'view-requests.js',
  'view-clock.js',
  'view-sandbox.js',
];
/** Served at /assets/<name>: its content type, and its file under the package root. */
const ASSETS: Record<string, { type: string; file: string }> = {
  'checkout.js': { type: JS, file: 'assets/checkout.js' },
  'checkout-wallet.js': { type: JS, file: 'assets/checkout-wallet.js' },
  // svc's one design (theme.css), then each page's own: checkout and bind (pages.css), the dashboard (ui.css).
  'theme.css': { type: 'text/css; charset=utf-8', file: 'assets/theme.css' },
  'pages.css': { type: 'text/css; charset=utf-8', file: 'assets/pages.css' },
  ...Object.fromEntries(DASHBOARD_MODULES.map((name) => [name, { type: JS, file: `assets/${name}` }])),
  // The typed client the package exports (`svc-emulator/client`), built as one ES module: the
  // dashboard calls the API through it, by operation id, so ui.js holds no path (issue 26).
  'client.js': { type: 'text/javascript; charset=utf-8', file: 'dist/client.js' },
  // The rules the dashboard shares with the checkout page and the CLI (src/entry/page-rules.ts).
  'page-rules.js': { type: JS, file: 'dist/page-rules.js' },
  'ui.css': { type: 'text/css; charset=utf-8', file: 'assets/ui.css' },
  'charts.css': { type: 'text/css; charset=utf-8', file: 'assets/charts.css' },
  'favicon.svg': { type: 'image/svg+xml', file: 'assets/favicon.svg' },
};
const assetCache = new Map<string, string>();
function asset(name: string): string {
  let text = assetCache.get(name);
  if (text === undefined) {
    // assets/ and dist/ sit at the package root, beside src/.
    const file = path.join(packageRoot(), ASSETS[name]!.file);
    // Only a checkout of the sources that was never built lacks dist/: say so rather than a 500.
    if (!fs.existsSync(file)) throw new ApiError(404, 'not_found', `${ASSETS[name]!.file} is not built: run \`npm run build\`.`);
    text = fs.readFileSync(file, 'utf8');
    assetCache.set(name, text);
  }
  return text;
}

/** The hosted checkout page, its live state and test panel, the bind page, and their assets. */
export const pageRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/checkout/:invoiceId',
    auth: 'none',
    handle: async (input: RouteInput<undefined>, deps) => {
      const invoice = await invoiceOrNull(deps, input.params.invoiceId!);
      if (!invoice) return { status: 404, html: notFoundPage('There is no invoice at this address.'), headers: PAGE_HEADERS };
      const state = await checkoutState(deps.db, invoice, deps.clock.now());
      const test = invoice.environment === 'test';
      // With local chains, "Pay from a test wallet" beside the test panel (CONTRACT §14).
      const wallet = test && !state.final && deps.runtime.chains ? walletPanel(deps.runtime.chains.networkIds()) : undefined;
      return { status: 200, html: await renderCheckout(state, test, wallet), headers: PAGE_HEADERS };
    },
  },
  {
    method: 'GET',
    path: '/checkout/:invoiceId/state',
    auth: 'none',
    handle: async (input: RouteInput<undefined>, deps) => {
      const invoice = await invoiceOrNull(deps, input.params.invoiceId!);
      if (!invoice) throw new ApiError(404, 'invoice_not_found', 'No such invoice.');
      return { status: 200, body: await checkoutState(deps.db, invoice, deps.clock.now()), headers: { 'Cache-Control': 'no-store' } };
    },
  },
  {
    method: 'GET',
    path: '/checkout/:invoiceId/qr/:route',
    auth: 'none',
    handle: async (input: RouteInput<undefined>, deps) => {
      const invoice = await invoiceOrNull(deps, input.params.invoiceId!);
      const route = invoice && (await checkoutState(deps.db, invoice, deps.clock.now())).routes.find((r) => r.key === input.params.route);
      if (!route) throw new ApiError(404, 'not_found', 'No such route on this invoice.');
      return { status: 200, text: await qrSvg(route.uri), contentType: 'image/svg+xml', headers: { 'Cache-Control': 'no-store' } };
    },
  },
  {
    method: 'POST',
    path: '/checkout/:invoiceId/test/:action',
    auth: 'none',
    sameOriginWrites: true,
    validated: true,
    get body() {
      return schemas().checkoutTestBody;
    },
    handle: async (input: RouteInput<CheckoutTestBody>, deps) => {
      const invoice = await testInvoice(deps, input.params.invoiceId!);
      const route = { networkId: input.body.networkId, token: input.body.token };
      switch (input.params.action) {
        case 'pay-full':
          await addPayment(deps, invoice, { ...route, amount: testAmount(invoice, 'full') });
          break;
        case 'pay-part':
          await addPayment(deps, invoice, { ...route, amount: testAmount(invoice, 'part') });
          break;
        case 'overpay':
          await addPayment(deps, invoice, { ...route, amount: testAmount(invoice, 'over') });
          break;
        case 'pay-unconfirmed':
          await addPayment(deps, invoice, { ...route, amount: testAmount(invoice, 'full'), confirmed: false });
          break;
        case 'confirm': {
          if (!input.body.paymentId) throw new ApiError(400, 'validation_failed', 'paymentId is required.', 'paymentId');
          await confirmPendingPayment(deps, invoice, input.body.paymentId);
          break;
        }
        case 'expire':
          await expireInvoiceNow(deps, invoice);
          break;
        default:
          throw new ApiError(404, 'not_found', `No test action ${input.params.action}.`);
      }
      const updated = (await deps.db.invoices.findInvoice(invoice.id))!;
      return { status: 200, body: await checkoutState(deps.db, updated, deps.clock.now()) };
    },
  },
  {
    // The dashboard (CONTRACT §10): loopback-only and cross-site-safe like the control plane.
    method: 'GET',
    path: '/__emulator/ui',
    auth: 'none',
    control: true,
    controlShell: true,
    handle: (_input: RouteInput<undefined>, deps) => ({ status: 200, html: renderDashboard(deps.version), headers: PAGE_HEADERS }),
  },
  {
    method: 'GET',
    path: '/bind/:merchantId',
    auth: 'none',
    handle: async (input: RouteInput<undefined>, deps) => {
      const id = input.params.merchantId!;
      const merchant = isUuid(id) ? await deps.db.merchants.findMerchant(id) : undefined;
      if (!merchant) return { status: 404, html: notFoundPage('There is no merchant at this address.'), headers: PAGE_HEADERS };
      const partner = await deps.db.partners.findPartner(merchant.partner_id);
      return { status: 200, html: renderBind(merchant, partner, input.query.get('done') === '1'), headers: PAGE_HEADERS };
    },
  },
  {
    method: 'POST',
    path: '/bind/:merchantId/complete',
    auth: 'none',
    sameOriginWrites: true,
    handle: async (input: RouteInput<undefined>, deps) => {
      const id = input.params.merchantId!;
      // The check and the change in one transaction. Idempotent: completing twice changes nothing the second time.
      const found = await deps.db.transaction(async (tx) => {
        const merchant = isUuid(id) ? await tx.merchants.findMerchant(id) : undefined;
        if (merchant && merchant.integration_status !== 'ACTIVE') await tx.merchants.setIntegrationStatus(id, 'ACTIVE', deps.clock.now());
        return merchant !== undefined;
      });
      if (!found) return { status: 404, html: notFoundPage('There is no merchant at this address.'), headers: PAGE_HEADERS };
      // Post/redirect/get, so a reload does not resubmit the form.
      return { status: 303, headers: { Location: `/bind/${id}?done=1` } };
    },
  },
  {
    // Browsers ask for it on every page they have no icon link for (a 404 in every page load's log).
    method: 'GET',
    path: '/favicon.ico',
    auth: 'none',
    handle: () => ({
      status: 200,
      text: asset('favicon.svg'),
      contentType: 'image/svg+xml',
      headers: { 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' },
    }),
  },
  {
    method: 'GET',
    path: '/assets/:name',
    auth: 'none',
    handle: (input: RouteInput<undefined>) => {
      // Own keys only: `constructor` or `__proto__` must not reach the file system as a name.
      const type = Object.hasOwn(ASSETS, input.params.name!) ? ASSETS[input.params.name!]!.type : undefined;
      if (!type) throw new ApiError(404, 'not_found', 'No such asset.');
      return {
        status: 200,
        text: asset(input.params.name!),
        contentType: type,
        headers: { 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' },
      };
    },
  },
];
