#!/usr/bin/env node
// Writes docs/images/dashboard-invoice.png and dashboard-deliveries.png, shown in the README: a real
// emulator with a few invoices and a receiver that fails once, Debian's Chromium. After `npm run build`.
import http from 'node:http';
import { chromium } from 'playwright-core';
import { startEmulator } from '../dist/index.js';

let calls = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(++calls === 2 ? 500 : 200).end(calls === 2 ? 'temporarily broken' : 'ok'));
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const emulator = await startEmulator({ port: 0, seed: 1, clockStart: '2030-01-01T09:00:00Z' });
try {
  const api = emulator.client.test;
  await api.putWebhook({ body: { url: `http://127.0.0.1:${receiver.address().port}/hooks`, secret: 'whsec_dashboard_screenshot_1' } });
  let shown;
  for (const [amount, ref] of [
    ['25.00', 'order-1001'],
    ['12.50', 'order-1002'],
    ['99.00', 'order-1003'],
  ]) {
    const created = await api.createInvoice({ body: { amount, referenceId: ref }, idempotencyKey: ref });
    shown ??= created.data;
  }
  await api.createTestPayment({ params: { id: shown.id }, body: { amount: '10.00' } });
  await api.createTestPayment({ params: { id: shown.id }, body: {} });
  await new Promise((r) => setTimeout(r, 500));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1000, height: 820 }, colorScheme: 'light' });
  await page.goto(`${emulator.url}/__emulator/ui/#/invoices/${shown.id}`);
  await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await page.locator('main details summary').nth(1).click();
  await page.screenshot({ path: new URL('../docs/images/dashboard-invoice.png', import.meta.url).pathname, fullPage: true });
  await page.goto(`${emulator.url}/__emulator/ui/#/deliveries`);
  await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: new URL('../docs/images/dashboard-deliveries.png', import.meta.url).pathname, fullPage: true });
  await browser.close();
  console.log('wrote docs/images/dashboard-invoice.png and docs/images/dashboard-deliveries.png');
} finally {
  await emulator.stop();
  receiver.close();
}
