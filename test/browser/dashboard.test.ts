import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { ROOT } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// Page-side code (page.evaluate) runs in the browser; this project compiles without the DOM lib.
declare const document: any;
declare const getComputedStyle: any;

/**
 * The dashboard (CONTRACT §10) in Debian's Chromium against a real emulator and a real receiver: a
 * developer's day (watch invoices arrive, drive one by hand, see deliveries and resend, read the
 * journal, the clock, snapshots, faults and chaos), live without reload, by keyboard, in a narrow
 * window, and nothing requested from anywhere but the emulator.
 */
let browser: Browser;
let emu: TestEmulator;
let rx: Receiver;
const outside: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  emu = await startTestEmulator();
  rx = await startReceiver();
  await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: `${rx.url}/hooks`, secret: 'whsec_dashboard_tests_1' } });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await emu?.stop();
  await rx?.close();
  // Every request any page made went to the emulator.
  expect(outside).toEqual([]);
});

async function open(hash = '', viewport = { width: 1100, height: 900 }): Promise<Page & { errors: string[] }> {
  const page = (await browser.newPage({ viewport })) as Page & { errors: string[] };
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (!url.startsWith(emu.url)) {
      outside.push(url);
      return route.abort();
    }
    return route.continue();
  });
  await page.goto(`${emu.url}/__emulator/ui/${hash}`);
  await page
    .locator('#live')
    .filter({ hasText: /^live$/ })
    .waitFor();
  await page.evaluate(() => ((globalThis as unknown as { __noReload: boolean }).__noReload = true));
  return page;
}
const notReloaded = (page: Page) => page.evaluate(() => (globalThis as unknown as { __noReload?: boolean }).__noReload === true);

async function createInvoice(amount = '20.00', referenceId?: string) {
  const res = await emu.call('POST', '/v1/invoices', {
    key: emu.keys.test.merchantKey,
    idempotencyKey: ikey(),
    body: { amount, ...(referenceId ? { referenceId } : {}) },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

describe('the dashboard', () => {
  it('shows invoices arriving live, and an invoice with its addresses, events and deliveries', async () => {
    const page = await open('#/invoices');
    const inv = await createInvoice('20.00', 'order-<b>hello</b>');
    await page.getByRole('link', { name: inv.id }).waitFor();
    expect(await notReloaded(page)).toBe(true);
    await page.getByRole('link', { name: inv.id }).click();
    await page.getByRole('heading', { name: 'Addresses' }).waitFor();
    // Escaped: the reference shows as text, no element made of it.
    expect(await page.getByText('order-<b>hello</b>').count()).toBe(1);
    expect(await page.locator('main b').count()).toBe(0);
    await page.locator('ol.activity').getByText('Event #1 invoice.created → CREATED').waitFor();
    await page
      .getByRole('region', { name: /^Deliveries/ })
      .getByRole('cell', { name: 'invoice.created' })
      .waitFor();
    expect(page.errors).toEqual([]);
    await page.close();
  });

  // Issue 26: the page calls the API through the typed client the package exports (dist/client.js,
  // `svc-emulator/client`), served beside ui.js with the same headers as the other assets.
  it('loads the typed client module the package exports, and sends every call through it', async () => {
    const served = await emu.call('GET', '/assets/client.js');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(served.headers.get('cache-control')).toBe('public, max-age=300');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.text).toBe(fs.readFileSync(path.join(ROOT, 'dist', 'client.js'), 'utf8'));

    const page = (await browser.newPage()) as Page;
    const calls: { url: string; accept: string | undefined; client: string | undefined }[] = [];
    const scripts: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (r.resourceType() === 'script') scripts.push(url.pathname);
      if (url.pathname.startsWith('/v1/') || (url.pathname.startsWith('/__emulator/') && !url.pathname.startsWith('/__emulator/ui')))
        calls.push({ url: `${r.method()} ${url.pathname}`, accept: r.headers().accept, client: r.headers()['svc-client'] });
    });
    await page.goto(`${emu.url}/__emulator/ui/#/invoices`);
    await page
      .locator('#live')
      .filter({ hasText: /^live$/ })
      .waitFor();
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    // ui.js first, then the modules it imports (assets/), the typed client among them.
    expect(scripts[0]).toBe('/assets/ui.js');
    expect(scripts).toContain('/assets/client.js');
    expect(scripts.filter((s) => !/^\/assets\/[a-z-]+\.js$/.test(s))).toEqual([]);
    expect(calls.map((c) => c.url)).toEqual(expect.arrayContaining(['GET /__emulator/keys', 'GET /__emulator/changes', 'GET /v1/partner/invoices']));
    // The client's own headers (ui.js sets none but Svc-Client); the change feed is a stream (readEvents).
    for (const c of calls.filter((x) => x.url !== 'GET /__emulator/changes'))
      expect(c, c.url).toMatchObject({ accept: 'application/json', client: 'dashboard' });
    await page.close();
  });

  it('drives an invoice by hand: pay part, pay unconfirmed then confirm, and the open page follows', async () => {
    const inv = await createInvoice('30.00');
    const page = await open(`#/invoices/${inv.id}`);
    await page.getByRole('button', { name: 'Pay part' }).click();
    await statusShown(page, 'PARTIALLY_PAID');
    await page.getByRole('button', { name: 'Pay unconfirmed' }).click();
    await statusShown(page, 'CONFIRMING');
    await page.getByRole('button', { name: 'Confirm pending payment' }).click();
    await statusShown(page, 'PAID');
    expect((await emu.call('GET', `/v1/invoices/${inv.id}`, { key: emu.keys.test.merchantKey })).body.status).toBe('PAID');
    expect(await notReloaded(page)).toBe(true);
    await page.close();
  });

  it('overpays and expires through the same test helpers the API has', async () => {
    const a = await createInvoice('5.00');
    const b = await createInvoice('5.00');
    const page = await open(`#/invoices/${a.id}`);
    await page.getByRole('button', { name: 'Overpay' }).click();
    await statusShown(page, 'PAID');
    expect((await emu.call('GET', `/v1/invoices/${a.id}`, { key: emu.keys.test.merchantKey })).body.amountReceived).toBe('6.00');
    await page.goto(`${emu.url}/__emulator/ui/#/invoices/${b.id}`);
    await page.getByRole('button', { name: 'Expire now' }).click();
    await statusShown(page, 'EXPIRED');
    await page.close();
  });

  it('shows why a delivery failed, and resends it once the receiver is fixed', async () => {
    rx.respond({ status: 500, body: 'receiver broken' });
    const inv = await createInvoice('7.00');
    const deliveries = async () => (await emu.call('GET', `/v1/partner/webhook/deliveries?invoiceId=${inv.id}`, { key: emu.keys.test.partnerKey })).body.data;
    for (let i = 0; i < 100 && (await deliveries())[0]?.attemptCount !== 1; i++) await new Promise((r) => setTimeout(r, 20));
    const [delivery] = await deliveries();
    const page = await open(`#/deliveries/${delivery.id}`);
    await page.getByText('receiver broken').waitFor();
    await page.getByText(/#1 scheduled .* 500/).waitFor();
    rx.respond({ status: 200 });
    await page.getByRole('button', { name: 'Resend' }).click();
    await statusShown(page, 'succeeded');
    await page.close();
  });

  it('advances the clock by a chosen step and says what fell due', async () => {
    const page = await open('#/clock');
    await page.getByLabel('Advance by').fill('2h');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    // In `svc time advance`'s words (issue 38: the page said `7200 s`).
    await page.getByText(/^Advanced 2h: \d+ expir(y|ies), \d+ delivery attempts?; now \+2h ahead of real time$/).waitFor();
    await page.close();
  });

  it('puts the clock back to the real time, as svc time reset does (issue 38)', async () => {
    expect((await emu.call('POST', '/__emulator/clock/advance', { body: { seconds: 3600 } })).status).toBe(200);
    const page = await open('#/clock');
    await page.getByRole('button', { name: 'Back to real time' }).click();
    await page.getByText(/^Clock reset: now /).waitFor();
    expect((await emu.call('GET', '/__emulator/clock')).body).toMatchObject({ offsetSeconds: 0 });
    await page.close();
  });

  it('reads the request journal, filtered by path and status', async () => {
    await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: 'x' } });
    const page = await open('#/requests?path=/v1/invoices&status=400');
    const entries = page.locator('ol.entries');
    await entries
      .getByText(/POST \/v1\/invoices → 400/)
      .first()
      .waitFor();
    expect(await entries.getByText(/→ 201/).count()).toBe(0);
    await page.close();
  });

  it('leaves its own calls out of the request journal unless asked, and marks them (issue 24)', async () => {
    expect((await emu.call('DELETE', '/__emulator/requests')).status).toBe(200);
    const inv = await createInvoice('3.00');
    const list = await open('#/invoices');
    await list.getByRole('link', { name: inv.id }).waitFor();
    await list.close();
    // The dashboard listed invoices through the API: the journal knows those calls are its own.
    const entries = (await emu.call('GET', '/__emulator/requests?limit=100')).body.data as { method: string; path: string; fromDashboard: boolean }[];
    const marks = entries.map((e) => `${e.method} ${e.path} ${e.fromDashboard}`);
    expect(marks).toContain('POST /v1/invoices false');
    expect(marks).toContain('GET /v1/partner/invoices true');
    const mine = (await emu.call('GET', '/__emulator/requests?fromDashboard=false')).body.data as { fromDashboard: boolean }[];
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((e) => !e.fromDashboard)).toBe(true);

    const page = await open('#/requests');
    const journal = page.locator('ol.entries');
    await journal
      .getByText(/POST \/v1\/invoices → 201/)
      .first()
      .waitFor();
    expect(await journal.getByText(/GET \/v1\/partner\/invoices/).count()).toBe(0);
    await page.getByLabel("the dashboard's own requests too").check();
    await page.getByRole('button', { name: 'Filter' }).click();
    await journal
      .getByText(/GET \/v1\/partner\/invoices.* · dashboard$/)
      .first()
      .waitFor();
    expect(await journal.getByText(/POST \/v1\/invoices → 201/).count()).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('saves and restores a snapshot, adds and clears faults and chaos, mints a merchant key', async () => {
    const page = await open('#/snapshots');
    await page.getByLabel('Snapshot name').fill('from-dashboard');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'from-dashboard', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Restore: done').waitFor();

    await page.goto(`${emu.url}/__emulator/ui/#/faults`);
    await page.getByRole('button', { name: /Add fault/ }).click();
    await page.getByText('after_commit').waitFor();
    expect((await emu.call('GET', '/__emulator/faults')).body.data).toHaveLength(1);
    await page.getByRole('button', { name: 'Clear all' }).click();
    await page.getByRole('button', { name: 'Duplicate every delivery' }).click();
    await page.getByText('"duplicate": 1').waitFor();
    await page.getByRole('button', { name: 'End chaos' }).click();
    await page.getByText('No webhook chaos in force.').waitFor();
    expect((await emu.call('GET', '/__emulator/faults')).body.data).toEqual([]);

    await page.goto(`${emu.url}/__emulator/ui/#/merchants`);
    await page.getByRole('button', { name: 'Mint a key' }).first().click();
    await page.getByText(/New key \(shown once\): test_[0-9A-Za-z]{32}/).waitFor();
    await page.close();
  });

  it('is usable by keyboard and readable in a narrow window', async () => {
    const page = await open('#/invoices', { width: 360, height: 740 });
    const width = await page.evaluate(
      () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
    );
    expect(width).toBeLessThanOrEqual(360);
    const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || '');
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order).toEqual(['Skip to the view', 'env', 'Invoices', 'Deliveries']);
    // Focus is visible: an outline drawn on the focused link.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Deliveries', level: 1 }).waitFor();
    // The new view is where the keyboard goes on.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.close();
  });

  // Issue 24: a long error pushed "next attempt" off a 1280 px screen, and every load asked for a
  // /favicon.ico that was not there.
  it('fits a long error in the deliveries table at 1280 px, the whole of it on demand, and serves its icon', async () => {
    const far = await startReceiver({ redirect: `http://example.test/${'a-very-long-path-segment/'.repeat(12)}end` });
    try {
      await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: `${far.url}/hooks` } });
      await createInvoice('1.00');
      const deadline = Date.now() + 10_000;
      let error = '';
      while (!error && Date.now() < deadline) {
        const list = await emu.call('GET', '/v1/partner/webhook/deliveries?limit=100', { key: emu.keys.test.partnerKey });
        error = list.body.data.find((d: { lastError: string | null }) => d.lastError?.startsWith('redirect:'))?.lastError ?? '';
        if (!error) await new Promise((r) => setTimeout(r, 50));
      }
      expect(error.length).toBeGreaterThan(250);

      const missing: string[] = [];
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('response', (r) => {
        if (r.status() >= 400) missing.push(`${r.status()} ${r.url()}`);
      });
      await page.goto(`${emu.url}/__emulator/ui/#/deliveries`);
      await page.locator('td', { hasText: 'redirect:' }).first().waitFor();
      const next = await page.getByRole('columnheader', { name: 'next attempt' }).boundingBox();
      expect(next!.x + next!.width).toBeLessThanOrEqual(1280);
      const table = page.locator('main table').first();
      expect(await table.evaluate((t) => t.scrollWidth <= t.clientWidth)).toBe(true);
      // The whole error is there on demand (tooltip, and in full on focus), the cell shows its start.
      expect(await page.locator('td [title^="redirect:"]').first().getAttribute('title')).toBe(error);
      await shoot(page, 'deliveries-long-error-1280');
      // The icon: linked, served, and the browser's own guess (/favicon.ico) answered too.
      expect(await page.getAttribute('link[rel="icon"]', 'href')).toBe('/assets/favicon.svg');
      const icon = await emu.call('GET', '/favicon.ico');
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toBe('image/svg+xml');
      expect(icon.text).toContain('<svg');
      expect((await emu.call('GET', '/assets/favicon.svg')).status).toBe(200);
      expect(missing).toEqual([]);
      await page.close();
    } finally {
      await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: `${rx.url}/hooks` } });
      await far.close();
    }
  });

  it.each([1280, 390, 360])('every view fits a %i px window (no page-wide horizontal scroll)', async (width) => {
    const inv = await createInvoice('4.00');
    await emu.call('POST', `/v1/test_helpers/invoices/${inv.id}/payments`, { key: emu.keys.test.partnerKey, body: { amount: '1.00' } });
    const views = ['invoices', `invoices/${inv.id}`, 'deliveries', 'requests', 'merchants', 'webhook', 'clock', 'snapshots', 'faults'];
    const page = await open('#/invoices', { width, height: 900 });
    for (const view of views) {
      await page.goto(`${emu.url}/__emulator/ui/#/${view}`);
      await page.waitForFunction((hash) => document.body.dataset.ready === hash, `#/${view}`);
      await page.locator(`nav a[data-view="${view.split('/')[0]}"][aria-current]`).waitFor();
      const overflow = await page.evaluate(() => {
        const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
        return d.documentElement.scrollWidth - d.documentElement.clientWidth;
      });
      expect(overflow, `${view} at ${width} px`).toBeLessThanOrEqual(0);
      await shoot(page, `${view.replace('/', '-')}-${width}`);
    }
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

/** The status badge of the view's heading shows `status` (the word, with its icon). */
const statusShown = (page: Page, status: string) => page.locator(`main h1 .badge[data-status="${status}"]`).waitFor();

/** Set SCREENSHOT_DIR to keep what these tests see, to look at it. */
async function shoot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOT_DIR;
  if (dir) await page.screenshot({ path: path.join(dir, `dashboard-${name}.png`), fullPage: true });
}
