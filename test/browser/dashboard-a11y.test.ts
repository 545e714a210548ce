import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.js';
import { launchBrowser } from '../helpers/browser.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// Page-side code (page.evaluate) runs in the browser; this project compiles without the DOM lib.
declare const document: any;
declare const matchMedia: any;

/**
 * Issue 43: every view of the dashboard, and the checkout and bind pages that share its design,
 * pass axe-core (npm) with no serious or critical violation, in the light and the dark theme; every
 * control has a visible label; none scrolls the whole page sideways at 1280 px.
 */
let browser: Browser;
let emu: TestEmulator;
let rx: Receiver;
let views: string[];
let pages: string[];

beforeAll(async () => {
  browser = await launchBrowser();
  emu = await startTestEmulator();
  rx = await startReceiver();
  await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: `${rx.url}/hooks`, secret: 'whsec_a11y_tests_1' } });
  const created = await emu.call('POST', '/v1/invoices', {
    key: emu.keys.test.merchantKey,
    idempotencyKey: ikey(),
    body: { amount: '12.00', referenceId: 'order-a11y' },
  });
  const inv = created.body as { id: string; checkoutUrl: string };
  await emu.call('POST', `/v1/test_helpers/invoices/${inv.id}/payments`, { key: emu.keys.test.partnerKey, body: { amount: '5.00' } });
  await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: 'x' } });
  const deliveries = await emu.call('GET', `/v1/partner/webhook/deliveries?invoiceId=${inv.id}`, { key: emu.keys.test.partnerKey });
  const merchant = await emu.call('GET', `/v1/partner/merchants/${emu.keys.test.merchantId}`, { key: emu.keys.test.partnerKey });
  views = [
    'invoices',
    `invoices/${inv.id}`,
    'deliveries',
    `deliveries/${deliveries.body.data[0].id}`,
    'requests',
    'merchants',
    'webhook',
    'clock',
    'snapshots',
    'faults',
  ];
  pages = [inv.checkoutUrl, merchant.body.bindUrl];
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await emu?.stop();
  await rx?.close();
});

async function view(page: Page, hash: string): Promise<void> {
  await page.goto(`${emu.url}/__emulator/ui/${hash}`);
  await page.waitForFunction((h) => document.body.dataset.ready === h, hash);
}

describe.each(['light', 'dark'] as const)('in the %s theme', (colorScheme) => {
  it('every dashboard view passes axe-core with no serious or critical violation', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme });
    // The theme really follows the system: the page's background differs between the two.
    expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(colorScheme === 'dark');
    const found: Record<string, unknown> = {};
    for (const v of views) {
      await view(page, `#/${v}`);
      const violations = await seriousViolations(page);
      if (violations.length) found[v] = violations;
    }
    expect(found).toEqual({});
    await page.close();
  });

  it('the checkout and bind pages, on the same design, pass it too', async () => {
    const page = await browser.newPage({ viewport: { width: 480, height: 900 }, colorScheme });
    for (const url of pages) {
      await page.goto(url);
      expect(await seriousViolations(page), url).toEqual([]);
    }
    await page.close();
  });
});

describe('controls and layout', () => {
  it('every form control of every view has a visible label', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    for (const v of views) {
      await view(page, `#/${v}`);
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll('input, select, textarea')]
          .filter((el: any) => el.type !== 'hidden')
          .filter((el) => ![...(el.labels ?? [])].some((l: any) => l.checkVisibility() && l.innerText.trim().length > 0))
          .map((el: any) => el.outerHTML.slice(0, 80)),
      );
      expect(unlabelled, v).toEqual([]);
      // Buttons say what they do, in words a screen reader reads too.
      const unnamed = await page.evaluate(() =>
        [...document.querySelectorAll('button')]
          .filter((b) => !(b.getAttribute('aria-label') ?? b.textContent ?? '').trim())
          .map((b: any) => b.outerHTML.slice(0, 80)),
      );
      expect(unnamed, v).toEqual([]);
    }
    await page.close();
  });

  it('no view scrolls the page sideways at 1280 px, in either theme', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme });
      for (const v of views) {
        await view(page, `#/${v}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${v} (${colorScheme})`).toBeLessThanOrEqual(0);
      }
      await page.close();
    }
  });
});
