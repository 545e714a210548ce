import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/** The merchant bind page completes onboarding; the API then reads ACTIVE. */
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

describe('bind page', () => {
  it('shows the merchant and its partner, and completes onboarding idempotently', async () => {
    const partner = await emu.call('POST', '/__emulator/partners', { body: { name: 'Acme Platform <Inc>' } });
    const key = partner.body.test.partnerKey as string;
    const created = await emu.call('POST', '/v1/partner/merchants', {
      key,
      body: { externalTenantId: 'bind-1', name: 'Corner Café & Co', email: 'cafe@example.com' },
      idempotencyKey: ikey(),
    });
    expect(created.body.integrationStatus).toBe('PENDING');

    const page = await browser.newPage();
    await page.goto(created.body.bindUrl);
    expect(await page.textContent('#merchant-name')).toBe('Corner Café & Co');
    expect(await page.textContent('#partner-name')).toBe('Acme Platform <Inc>');
    expect(await page.textContent('#integration-status')).toBe('PENDING');

    await page.click('#complete');
    await page.waitForURL(/\/bind\/[0-9a-f-]+\?done=1$/);
    expect(await page.textContent('#integration-status')).toBe('ACTIVE');
    expect(await page.locator('#complete').count()).toBe(0);

    const read = await emu.call('GET', `/v1/partner/merchants/${created.body.merchantId}`, { key });
    expect(read.body.integrationStatus).toBe('ACTIVE');
    const updatedAt = read.body.updatedAt;

    // A second completion (an old tab, a double submit) changes nothing.
    const again = await emu.call('POST', `/bind/${created.body.merchantId}/complete`);
    expect(again.status).toBe(303);
    const after = await emu.call('GET', `/v1/partner/merchants/${created.body.merchantId}`, { key });
    expect(after.body).toMatchObject({ integrationStatus: 'ACTIVE', updatedAt });
    await page.close();
  });

  it('an unknown merchant is a plain 404 page', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${emu.url}/bind/00000000-0000-4000-8000-000000000000`);
    expect(res!.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Not found');
    await page.close();
  });
});
