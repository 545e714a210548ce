#!/usr/bin/env node
// Writes docs/checkout.png, the screenshot shown in docs/api.md: a real emulator, a real invoice,
// Debian's Chromium. Run after `npm run build`: `node scripts/screenshot.mjs`.
// SCREENSHOT_ALL=<folder> also writes the page at 390 px, light and dark, there, to look at.
import { chromium } from 'playwright-core';
import { startEmulator } from '../dist/index.js';

const emulator = await startEmulator({ port: 0 });
try {
  const res = await fetch(`${emulator.url}/v1/invoices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emulator.keys.test.merchantKey}`, 'content-type': 'application/json', 'idempotency-key': 'screenshot' },
    body: JSON.stringify({ amount: '25.00', referenceId: 'order-1001' }),
  });
  const invoice = await res.json();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 480, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(invoice.checkoutUrl);
  await page.selectOption('#network', '84532');
  await page.click('[data-action="pay-part"]');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('Partially paid'));
  await page.waitForTimeout(300);
  await page.screenshot({ path: new URL('../docs/checkout.png', import.meta.url).pathname, fullPage: true });
  for (const colorScheme of process.env.SCREENSHOT_ALL ? ['light', 'dark'] : []) {
    const other = await browser.newPage({ viewport: { width: 390, height: 900 }, colorScheme });
    await other.goto(invoice.checkoutUrl);
    await other.screenshot({ path: `${process.env.SCREENSHOT_ALL}/checkout-390-${colorScheme}.png`, fullPage: true });
    await other.close();
  }
  await browser.close();
  console.log('wrote docs/checkout.png');
} finally {
  await emulator.stop();
}
