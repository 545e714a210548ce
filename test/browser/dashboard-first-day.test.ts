import { spawn } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatClockOffset } from '../../src/domain/duration.js';
import { CHROMIUM, launchBrowser } from '../helpers/browser.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

// Page-side code (page.evaluate) runs in the browser; this project compiles without the DOM lib.
declare const document: any;
declare const location: any;

/**
 * Issue 38, "The dashboard": what a new user tripped on. The test actions a state allows are the
 * same on the dashboard and the checkout page; the Clock and Faults inputs have visible labels; the
 * clock's offset reads as `svc time` says it; a view says when its data is in; and the live feed
 * lets a headless browser's virtual time run out (`--virtual-time-budget` hung on it).
 */
let browser: Browser;
let emu: TestEmulator;

beforeAll(async () => {
  browser = await launchBrowser();
  emu = await startTestEmulator();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await emu?.stop();
});

const partner = () => ({ key: emu.keys.test.partnerKey });
async function invoice(amount = '10.00') {
  const res = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount } });
  expect(res.status).toBe(201);
  return res.body as { id: string; checkoutUrl: string };
}
const pay = (id: string, body: Record<string, unknown>) => emu.call('POST', `/v1/test_helpers/invoices/${id}/payments`, { ...partner(), body });

async function dashboard(hash: string, width = 1100): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${emu.url}/__emulator/ui/${hash}`);
  await page.waitForFunction((h) => document.body.dataset.ready === h, hash);
  return page;
}

/** Each test action a page offers: its words, whether it can be used, and why not. */
const offered = (page: Page, scope: string) =>
  page.locator(`${scope} [data-action]`).evaluateAll((buttons) =>
    buttons.map((b) => ({
      action: b.getAttribute('data-action'),
      label: b.textContent,
      disabled: (b as unknown as { disabled: boolean }).disabled,
      why: b.getAttribute('title'),
    })),
  );

describe('the dashboard, as a new user meets it', () => {
  it('offers the test actions the invoice’s state allows, exactly as the checkout page does', async () => {
    const created = await invoice();
    const partial = await invoice();
    await pay(partial.id, { amount: '4.00' });
    const confirming = await invoice();
    await pay(confirming.id, { confirmed: false });
    const paid = await invoice();
    await pay(paid.id, {});
    const overpaid = await invoice();
    await pay(overpaid.id, { amount: '12.00' });
    const expired = await invoice();
    await emu.call('POST', `/v1/test_helpers/invoices/${expired.id}/expire`, partner());

    const seen: Record<string, unknown> = {};
    for (const [state, inv] of Object.entries({ created, partial, confirming, paid, overpaid, expired })) {
      const checkout = await browser.newPage();
      await checkout.goto(inv.checkoutUrl);
      const onCheckout = await offered(checkout, '.test-panel');
      const reasonsOnCheckout = await checkout.locator('#test-reasons li').allTextContents();
      await checkout.close();
      const page = await dashboard(`#/invoices/${inv.id}`);
      expect(await offered(page, 'main'), state).toEqual(onCheckout);
      expect(await page.locator('main #test-reasons li').allTextContents(), state).toEqual(reasonsOnCheckout);
      seen[state] = onCheckout.filter((a) => !a.disabled).map((a) => a.action);
      await page.close();
    }
    // Issue 38's case: a PAID invoice offers neither "Pay in full", "Pay part" nor "Expire".
    expect(seen).toEqual({
      created: ['pay-full', 'pay-part', 'overpay', 'pay-unconfirmed', 'expire'],
      partial: ['pay-full', 'pay-part', 'overpay', 'pay-unconfirmed', 'expire'],
      confirming: ['pay-full', 'pay-part', 'overpay', 'pay-unconfirmed', 'confirm', 'expire'],
      paid: ['overpay', 'pay-unconfirmed'],
      overpaid: ['overpay', 'pay-unconfirmed'],
      expired: ['pay-full', 'pay-part', 'overpay', 'pay-unconfirmed'],
    });
  }, 90_000);

  it('labels the Clock and Faults inputs, and says the clock’s offset as `svc time` does (+1h1m)', async () => {
    expect((await emu.call('POST', '/__emulator/clock/advance', { body: { seconds: 3660 } })).status).toBe(200);
    const page = await dashboard('#/clock');
    // The CLI's wording, from the same function (src/domain/duration.ts), served to the page.
    expect(formatClockOffset(3660)).toBe('+1h1m ahead of real time');
    expect(await page.locator('#clock-offset').textContent()).toBe('+1h1m ahead of real time');
    expect(await page.locator('main').innerText()).not.toMatch(/\b3660 s\b/);
    await page.getByLabel('Advance by').fill('90s');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await page.getByText(/^Advanced 1m30s: .*; now \+1h2m30s ahead of real time$/).waitFor();

    await page.goto(`${emu.url}/__emulator/ui/#/faults`);
    await page.waitForFunction(() => document.body.dataset.ready === '#/faults');
    await page.getByLabel('Path').fill('/v1/partner/merchants');
    await page.getByLabel('Answer with status').fill('502');
    await page.getByRole('button', { name: /Add fault/ }).click();
    await page.getByRole('cell', { name: 'after_commit' }).waitFor();
    const faults = (await emu.call('GET', '/__emulator/faults')).body.data;
    await emu.call('DELETE', '/__emulator/faults');
    expect(faults).toMatchObject([{ match: { path: '/v1/partner/merchants' }, action: { status: 502 } }]);
    await page.close();
  });

  it('marks a view ready (body[data-ready]) only once its data is shown', async () => {
    const inv = await invoice('7.00');
    const page = await browser.newPage();
    // Hold the invoice list's answer: until it comes, the view is not ready.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/v1/partner/invoices?*', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${emu.url}/__emulator/ui/#/invoices`);
    await page.locator('#live[data-state="live"]').waitFor();
    expect(await page.evaluate(() => document.body.dataset.ready)).toBeUndefined();
    expect(await page.locator('main').innerText()).toBe('Loading…');
    release();
    await page.waitForFunction(() => document.body.dataset.ready === '#/invoices');
    // Ready means shown: the invoice is in the table at that moment.
    expect(await page.getByRole('link', { name: inv.id }).count()).toBe(1);
    // Another view clears it until that view's data is in.
    await page.evaluate(() => (location.hash = '#/clock'));
    await page.waitForFunction(() => document.body.dataset.ready === '#/clock');
    expect(await page.locator('#clock-offset').count()).toBe(1);
    await page.close();
  });

  it('lets a headless browser’s virtual time run out while the live feed is open (--virtual-time-budget)', async () => {
    await invoice('8.00');
    // Chromium's own way to take a screenshot of a page that has settled: it waits for network
    // fetches in flight, then runs 5 s of virtual time, then prints the DOM. An EventSource held it.
    const chromium = spawn(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--user-data-dir=${tempDir('svc-virtual-time-')}`,
        '--virtual-time-budget=5000',
        '--dump-dom',
        `${emu.url}/__emulator/ui/#/invoices`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let dom = '';
    chromium.stdout.on('data', (chunk) => (dom += chunk));
    const code = await new Promise<number | null>((resolve) => chromium.on('exit', resolve));
    expect(code).toBe(0);
    expect(dom).toMatch(/<body[^>]* data-ready="#\/invoices"/);
    expect(dom).toContain('id="live" class="live" role="status" data-state="live"');
  }, 30_000);
});
