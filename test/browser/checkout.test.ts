import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBaseUnits } from '../../src/domain/money.js';
import { launchBrowser } from '../helpers/browser.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { readQr } from '../helpers/qr.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/** The hosted checkout page in Debian's Chromium, against a real emulator and a real receiver. */
let browser: Browser;
let emu: TestEmulator;
let rx: Receiver;

beforeAll(async () => {
  browser = await launchBrowser();
  emu = await startTestEmulator();
  rx = await startReceiver();
  await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: `${rx.url}/hooks`, secret: 'whsec_browser_tests_1' } });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await emu?.stop();
  await rx?.close();
});

interface Invoice {
  id: string;
  checkoutUrl: string;
  status: string;
  addresses: {
    networkId: number;
    chainName: string;
    depositAddress: string;
    family: string;
    tokens: { symbol: string; contractAddress: string; decimals: number }[];
  }[];
}

async function invoice(body: Record<string, unknown> = { amount: '25.00' }, key = emu.keys.test.merchantKey): Promise<Invoice> {
  const res = await emu.call('POST', '/v1/invoices', { key, body, idempotencyKey: ikey() });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Opens the page and marks the window, so a reload (which would lose the mark) is detectable. */
async function open(url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 420, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.evaluate(() => ((globalThis as unknown as { __noReload: boolean }).__noReload = true));
  (page as Page & { errors: string[] }).errors = errors;
  return page;
}

const notReloaded = (page: Page) => page.evaluate(() => (globalThis as unknown as { __noReload?: boolean }).__noReload === true);

async function eventTypes(invoiceId: string, count: number): Promise<string[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const types = rx.requests
      .map((r) => JSON.parse(r.rawBody))
      .filter((e) => e.data.invoiceId === invoiceId)
      .sort((a, b) => a.data.sequence - b.data.sequence)
      .map((e) => e.type as string);
    if (types.length >= count || Date.now() > deadline) return types;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('checkout page', () => {
  it('shows the amount, status and countdown; switching route shows the API address and a QR code with its payment URI', async () => {
    const inv = await invoice();
    const page = await open(inv.checkoutUrl);
    expect(await page.textContent('#amount')).toBe('25.00');
    expect(await page.textContent('#status')).toBe('Awaiting payment');
    await expect.poll(() => page.textContent('#countdown')).toMatch(/^expires in (59:[0-5]\d|1:00:00)$/);

    // EVM: the first route, EIP-681.
    const sepolia = inv.addresses.find((a) => a.networkId === 11155111)!;
    expect(await page.inputValue('#address')).toBe(sepolia.depositAddress);
    const usdc = sepolia.tokens[0]!;
    expect(await readQr(page.locator('#qr'))).toBe(
      `ethereum:${usdc.contractAddress}@11155111/transfer?address=${sepolia.depositAddress}&uint256=${toBaseUnits('25.00', usdc.decimals)}`,
    );

    // Switch to Tron: its address, its token, and a QR code of the address.
    const tron = inv.addresses.find((a) => a.family === 'tron')!;
    await page.selectOption('#network', String(tron.networkId));
    expect(await page.inputValue('#address')).toBe(tron.depositAddress);
    expect(await page.inputValue('#token')).toBe('USDT');
    expect(await page.textContent('#route-chain')).toBe(tron.chainName);
    await expect.poll(() => readQr(page.locator('#qr')).catch(() => '')).toBe(tron.depositAddress);

    // Solana: a Solana Pay transfer request.
    const solana = inv.addresses.find((a) => a.family === 'solana')!;
    await page.selectOption('#network', String(solana.networkId));
    expect(await page.inputValue('#address')).toBe(solana.depositAddress);
    await expect
      .poll(() => readQr(page.locator('#qr')).catch(() => ''))
      .toBe(`solana:${solana.depositAddress}?amount=25.00&spl-token=${solana.tokens[0]!.contractAddress}`);
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await page.close();
  });

  it('offers only the locked route when the invoice is locked', async () => {
    const inv = await invoice({ amount: '5', networkId: 84532, token: 'USDC' });
    const page = await open(inv.checkoutUrl);
    expect(await page.locator('#network option').allTextContents()).toEqual(['Base Sepolia']);
    expect(await page.locator('#token option').allTextContents()).toEqual(['USDC']);
    expect(await page.inputValue('#address')).toBe(inv.addresses[0]!.depositAddress);
    await page.close();
  });

  it('"Pay in full" turns the status to paid without a reload, and invoice.paid reaches the webhook', async () => {
    const inv = await invoice();
    const page = await open(inv.checkoutUrl);
    await page.click('[data-action="pay-full"]');
    await expect.poll(() => page.textContent('#status')).toBe('Paid');
    expect(await notReloaded(page)).toBe(true);
    expect(await eventTypes(inv.id, 2)).toEqual(['invoice.created', 'invoice.paid']);
    const api = await emu.call('GET', `/v1/invoices/${inv.id}`, { key: emu.keys.test.merchantKey });
    expect(api.body).toMatchObject({ status: 'PAID', amountReceived: '25.00' });
    await page.close();
  });

  it('"Pay part" shows what is left, updates the QR amount, and invoice.partially_paid reaches the webhook', async () => {
    const inv = await invoice({ amount: '10.00', networkId: 84532 });
    const page = await open(inv.checkoutUrl);
    await page.click('[data-action="pay-part"]');
    await expect.poll(() => page.textContent('#status')).toBe('Partially paid: 5.00 left to pay');
    expect(await page.textContent('#received')).toBe('5.00');
    expect(await page.inputValue('#token-amount')).toBe('5.00');
    await expect.poll(() => readQr(page.locator('#qr')).catch(() => '')).toMatch(/&uint256=5000000$/);
    expect(await notReloaded(page)).toBe(true);
    expect(await eventTypes(inv.id, 2)).toEqual(['invoice.created', 'invoice.partially_paid']);
    await page.close();
  });

  it('"Expire now" shows expired, and invoice.expired reaches the webhook', async () => {
    const inv = await invoice();
    const page = await open(inv.checkoutUrl);
    await page.click('[data-action="expire"]');
    await expect.poll(() => page.textContent('#status')).toBe('Expired');
    expect(await page.textContent('#countdown')).toBe('expired');
    expect(await notReloaded(page)).toBe(true);
    expect(await eventTypes(inv.id, 2)).toEqual(['invoice.created', 'invoice.expired']);
    await page.close();
  });

  it('updates by itself when the invoice changes elsewhere (expiry on the clock, a payment through the API)', async () => {
    const inv = await invoice({ amount: '3.00' });
    const page = await open(inv.checkoutUrl);
    await emu.call('POST', `/v1/test_helpers/invoices/${inv.id}/payments`, { key: emu.keys.test.merchantKey, body: { amount: '1', confirmed: false } });
    await expect.poll(() => page.textContent('#status'), { timeout: 5000 }).toBe('Payment detected, waiting for confirmation');
    const other = await invoice({ amount: '3.00' });
    const second = await open(other.checkoutUrl);
    await emu.advanceClock(3600);
    await expect.poll(() => second.textContent('#status'), { timeout: 5000 }).toBe('Expired');
    expect(await notReloaded(second)).toBe(true);
    await page.close();
    await second.close();
  });

  it('"Pay unconfirmed" then "Confirm" walks through payment_detected to paid', async () => {
    const inv = await invoice({ amount: '7.00' });
    const page = await open(inv.checkoutUrl);
    expect(await page.isDisabled('[data-action="confirm"]')).toBe(true);
    await page.click('[data-action="pay-unconfirmed"]');
    await expect.poll(() => page.textContent('#status')).toBe('Payment detected, waiting for confirmation');
    await expect.poll(() => page.isEnabled('[data-action="confirm"]')).toBe(true);
    await page.click('[data-action="confirm"]');
    await expect.poll(() => page.textContent('#status')).toBe('Paid');
    expect(await eventTypes(inv.id, 3)).toEqual(['invoice.created', 'invoice.payment_detected', 'invoice.paid']);
    await page.close();
  });

  it('"Overpay" emits paid then overpaid', async () => {
    const inv = await invoice({ amount: '2.00' });
    const page = await open(inv.checkoutUrl);
    await page.click('[data-action="overpay"]');
    await expect.poll(() => page.textContent('#status')).toBe('Paid');
    expect(await page.textContent('#received')).toBe('3.00');
    expect(await eventTypes(inv.id, 3)).toEqual(['invoice.created', 'invoice.paid', 'invoice.overpaid']);
    await page.close();
  });

  it('live invoices show no test panel, and the panel endpoints refuse them', async () => {
    const inv = await invoice({ amount: '1' }, emu.keys.live.merchantKey);
    const page = await open(inv.checkoutUrl);
    expect(await page.textContent('#amount')).toBe('1');
    expect(await page.locator('.test-panel').count()).toBe(0);
    expect(await page.locator('[data-action]').count()).toBe(0);
    const res = await emu.call('POST', `/checkout/${inv.id}/test/pay-full`, { body: {} });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('test_mode_only');
    await page.close();
  });

  it('an unknown invoice is a plain 404 page', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${emu.url}/checkout/00000000-0000-4000-8000-000000000000`);
    expect(res!.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Not found');
    const junk = await page.goto(`${emu.url}/checkout/not-an-id`);
    expect(junk!.status()).toBe(404);
    await page.close();
  });

  it('escapes what comes from the request: a hostile referenceId is shown as text', async () => {
    const inv = await invoice({ amount: '1', referenceId: '<img src=x onerror="window.__xss=1"></script><b>hi</b>' });
    const page = await open(inv.checkoutUrl);
    expect(await page.textContent('#reference')).toBe('<img src=x onerror="window.__xss=1"></script><b>hi</b>');
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('#reference img').count()).toBe(0);
    await page.close();
  });

  it('is usable from the keyboard, with labelled controls in a sensible focus order', async () => {
    const inv = await invoice();
    const page = await open(inv.checkoutUrl);
    for (const id of ['network', 'token', 'address', 'token-amount']) {
      expect(await page.locator(`label[for="${id}"]`).count(), id).toBe(1);
    }
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      order.push(
        await page.evaluate(() => {
          // Runs in the page; typed loosely so the test program needs no DOM typings.
          const active = (globalThis as unknown as { document: { activeElement: { id: string; getAttribute(n: string): string | null } | null } }).document
            .activeElement;
          return active?.id || active?.getAttribute('data-copy') || active?.getAttribute('data-action') || '';
        }),
      );
    }
    // The token list has one entry on this network, so it is disabled and skipped; then the panel.
    expect(order).toEqual(['network', 'address', 'address', 'token-amount', 'token-amount', 'pay-full']);
    // Choose a network with the keyboard alone.
    await page.focus('#network');
    await page.keyboard.press('ArrowDown');
    expect(await page.inputValue('#address')).toBe(inv.addresses[1]!.depositAddress);
    await page.close();
  });
});

/** Set SCREENSHOT_DIR to keep the pages these tests see, to look at them. */
async function shoot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOT_DIR;
  if (dir) await page.screenshot({ path: path.join(dir, `checkout-${name}.png`), fullPage: true });
}

/** What the page asks the payer for: nothing at all once the invoice is final (issue 24). */
async function asksForMoney(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const sel of ['#address', '#qr', '#route-amount', '#token-amount', '#network', 'section.pay']) {
    if ((await page.locator(sel).count()) > 0) found.push(sel);
  }
  if (/\bSend\b/.test(await page.locator('body').innerText())) found.push('"Send"');
  return found;
}

const reasons = (page: Page) => page.locator('#test-reasons li').allTextContents();

describe('a paid, overpaid or expired invoice asks for nothing more (issue 24)', () => {
  it('after "Pay in full": the outcome and the payment received, no address, QR or amount; what cannot apply is disabled with the reason', async () => {
    const inv = await invoice({ amount: '25.00' });
    const page = await open(inv.checkoutUrl);
    expect(await asksForMoney(page)).toContain('#qr');
    await page.click('[data-action="pay-full"]');
    await expect.poll(() => page.textContent('#status')).toBe('Paid');
    await expect.poll(() => asksForMoney(page)).toEqual([]);
    expect(await notReloaded(page)).toBe(true);
    expect(await page.textContent('#outcome')).toBe('Paid in full: 25.00 USD received.');
    expect(await page.locator('#payments li').allTextContents()).toEqual(['25.00 USDC on Ethereum Sepolia']);
    expect(await page.textContent('#amount-label')).toBe('Invoice amount');
    for (const action of ['pay-full', 'pay-part', 'confirm', 'expire']) expect(await page.isDisabled(`[data-action="${action}"]`), action).toBe(true);
    expect(await page.getAttribute('[data-action="expire"]', 'title')).toBe('A paid invoice cannot expire.');
    expect(await reasons(page)).toEqual([
      'Pay in full: Nothing is left to pay.',
      'Pay part: Nothing is left to pay.',
      'Confirm pending payment: No payment is waiting for confirmation.',
      'Expire now: A paid invoice cannot expire.',
    ]);
    await shoot(page, 'paid-live');

    // The page as the server renders it for a paid invoice says the same, without the script's help.
    await page.reload();
    expect(await asksForMoney(page)).toEqual([]);
    expect(await page.textContent('#outcome')).toBe('Paid in full: 25.00 USD received.');
    expect(await page.isDisabled('[data-action="pay-full"]')).toBe(true);
    expect(await reasons(page)).toHaveLength(4);
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await shoot(page, 'paid');
    await page.close();
  });

  it('overpaid: how much more than due; an extra payment can still be simulated', async () => {
    const inv = await invoice({ amount: '2.00', networkId: 84532 });
    const page = await open(inv.checkoutUrl);
    await page.click('[data-action="overpay"]');
    await expect.poll(() => page.textContent('#outcome')).toBe('Overpaid: 3.00 USD received for 2.00 USD due (1.00 USD more).');
    expect(await asksForMoney(page)).toEqual([]);
    expect(await page.isEnabled('[data-action="overpay"]')).toBe(true);
    expect(await page.isEnabled('[data-action="pay-unconfirmed"]')).toBe(true);
    await shoot(page, 'overpaid');
    await page.close();
  });

  it('expired after a part payment: what was received; a late payment stays possible, expiring again does not', async () => {
    const inv = await invoice({ amount: '10.00', networkId: 84532 });
    const page = await open(inv.checkoutUrl);
    await page.click('[data-action="pay-part"]');
    await expect.poll(() => page.textContent('#received')).toBe('5.00');
    await page.click('[data-action="expire"]');
    await expect.poll(() => page.textContent('#outcome')).toBe('Expired with 5.00 of 10.00 USD received.');
    expect(await asksForMoney(page)).toEqual([]);
    expect(await page.locator('#payments li').allTextContents()).toEqual(['5.00 USDC on Base Sepolia']);
    expect(await page.isDisabled('[data-action="expire"]')).toBe(true);
    expect(await page.getAttribute('[data-action="expire"]', 'title')).toBe('The invoice has expired already.');
    expect(await page.isEnabled('[data-action="pay-full"]')).toBe(true);
    await shoot(page, 'expired');
    // A late payment (invoice.paid_late) keeps the page final and reports it.
    await page.click('[data-action="pay-full"]');
    await expect.poll(() => page.locator('#payments li').allTextContents()).toEqual(['5.00 USDC on Base Sepolia', '5.00 USDC on Base Sepolia']);
    expect(await page.textContent('#outcome')).toBe('Expired with 10.00 of 10.00 USD received.');
    expect(await eventTypes(inv.id, 4)).toEqual(['invoice.created', 'invoice.partially_paid', 'invoice.expired', 'invoice.paid_late']);
    await page.close();
  });

  it('expired before any payment says so', async () => {
    const inv = await invoice({ amount: '4.00' });
    await emu.call('POST', `/v1/test_helpers/invoices/${inv.id}/expire`, { key: emu.keys.test.merchantKey });
    const page = await open(inv.checkoutUrl);
    expect(await page.textContent('#outcome')).toBe('Expired before any payment arrived.');
    expect(await page.locator('#payments').count()).toBe(0);
    expect(await asksForMoney(page)).toEqual([]);
    await page.close();
  });
});
