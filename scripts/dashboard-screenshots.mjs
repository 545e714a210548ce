#!/usr/bin/env node
// Writes the dashboard's images in docs/images/ (the README shows them): a real emulator on a frozen
// clock (2030-01-01 09:00 UTC, moved by hand so the pictures have time in them), a few invoices, a
// receiver that fails once, Debian's Chromium. After `npm run build` (`npm run docs:screenshot`).
// SCREENSHOT_ALL=<folder> also writes every view at 1280 and 390 px, light and dark, to look at.
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startEmulator } from '../dist/index.js';

const images = new URL('../docs/images/', import.meta.url).pathname;
// The first invoice.partially_paid meets a broken receiver; its retry, a minute later, gets through.
let broke = false;
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const fail = !broke && body.includes('"invoice.partially_paid"');
    broke ||= fail;
    res.writeHead(fail ? 500 : 200).end(fail ? 'temporarily broken' : 'ok');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const emulator = await startEmulator({ port: 0, seed: 1, clockStart: '2030-01-01T09:00:00Z' });
const settle = () => new Promise((r) => setTimeout(r, 300));
try {
  const api = emulator.client.test;
  const advance = async (seconds) => {
    await emulator.client.test.advanceClock({ body: { seconds } });
    await settle();
  };
  await api.putWebhook({ body: { url: `http://127.0.0.1:${receiver.address().port}/hooks`, secret: 'whsec_dashboard_screenshot_1' } });
  const made = [];
  for (const [amount, ref] of [
    ['25.00', 'order-1001'],
    ['12.50', 'order-1002'],
    ['99.00', 'order-1003'],
  ]) {
    made.push((await api.createInvoice({ body: { amount, referenceId: ref }, idempotencyKey: ref })).data);
    await advance(20);
  }
  const [shown, second] = made;
  await api.createInvoice({ body: { amount: 'ten' }, idempotencyKey: 'bad-amount' });
  await advance(45);
  // A part payment: its event's delivery meets the receiver's one failure, then a retry succeeds.
  await api.createTestPayment({ params: { id: shown.id }, body: { amount: '10.00' } });
  await advance(70);
  await api.createTestPayment({ params: { id: shown.id }, body: {} });
  await advance(40);
  await api.createTestPayment({ params: { id: second.id }, body: { amount: '5.00', confirmed: false } });
  await advance(30);
  for (let i = 0; i < 4; i++) {
    await api.listInvoices({ query: { limit: 5 } });
    await api.getInvoice({ params: { id: made[i % 3].id } });
    await advance(50);
  }
  await settle();

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  /** Opens a view and waits until it marks itself ready (`body[data-ready]`). */
  const shoot = async (hash, file, { width = 1280, colorScheme = 'light', height = 900 } = {}) => {
    const page = await browser.newPage({ viewport: { width, height }, colorScheme, deviceScaleFactor: 1 });
    await page.goto(`${emulator.url}/__emulator/ui/${hash}`);
    await page.waitForFunction((h) => document.body.dataset.ready === h, hash);
    await page.screenshot({ path: file, fullPage: true });
    await page.close();
  };
  await shoot(`#/invoices/${shown.id}`, path.join(images, 'dashboard-invoice.png'));
  await shoot('#/deliveries', path.join(images, 'dashboard-deliveries.png'));
  await shoot('#/requests', path.join(images, 'dashboard-requests.png'));
  await shoot('#/clock', path.join(images, 'dashboard-clock.png'));
  await shoot(`#/invoices/${shown.id}`, path.join(images, 'dashboard-invoice-dark.png'), { colorScheme: 'dark' });
  console.log('wrote docs/images/dashboard-{invoice,deliveries,requests,clock,invoice-dark}.png');

  const all = process.env.SCREENSHOT_ALL;
  if (all) {
    const views = ['invoices', `invoices/${shown.id}`, 'deliveries', 'requests', 'merchants', 'webhook', 'clock', 'snapshots', 'faults'];
    for (const width of [1280, 390])
      for (const colorScheme of ['light', 'dark'])
        for (const view of views)
          await shoot(`#/${view}`, path.join(all, `${view.split('/')[0]}${view.includes('/') ? '-one' : ''}-${width}-${colorScheme}.png`), {
            width,
            colorScheme,
          });
    console.log(`wrote every view to ${all}`);
  }
  await browser.close();
} finally {
  await emulator.stop();
  receiver.close();
}
