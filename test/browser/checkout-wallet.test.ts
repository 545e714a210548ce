import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/**
 * The checkout page's "Pay from a test wallet" (CONTRACT §14) in Debian's Chromium, against an
 * emulator running local chains (real anvil nodes): the button sends a real transfer on the selected
 * network, and the page shows the invoice paid.
 */
let browser: Browser;
let emu: TestEmulator;
let plain: TestEmulator;

beforeAll(async () => {
  browser = await launchBrowser();
  emu = await startTestEmulator({ chains: true });
  plain = await startTestEmulator();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await emu?.stop();
  await plain?.stop();
});

async function invoice(on: TestEmulator, body: Record<string, unknown> = { amount: '12.50' }): Promise<{ id: string; checkoutUrl: string }> {
  const res = await on.call('POST', '/v1/invoices', { key: on.keys.test.merchantKey, body, idempotencyKey: ikey() });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('checkout page: pay from a test wallet', () => {
  it('sends a real transfer on the selected network; the page shows the invoice paid and the payment carries its transaction', async () => {
    const inv = await invoice(emu);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(inv.checkoutUrl);
    await page.selectOption('#network', '80002');
    await page.click('#pay-wallet');
    await expect
      .poll(() => page.textContent('#wallet-result'), { timeout: 20_000 })
      .toMatch(/^Sent 12\.50 USDC: transaction 0x[0-9a-f]{64}\. The invoice is PAID\.$/);
    await expect.poll(() => page.getAttribute('#status', 'data-status'), { timeout: 10_000 }).toBe('PAID');
    // Nothing more is due: the button would overpay.
    expect(await page.isDisabled('#pay-wallet')).toBe(true);

    const txHash = /transaction (0x[0-9a-f]{64})/.exec((await page.textContent('#wallet-result')) ?? '')![1];
    const payments = (await emu.call('GET', `/__emulator/invoices/${inv.id}/payments`)).body.data;
    expect(payments).toMatchObject([{ networkId: 80002, token: 'USDC', amount: '12.50', txHash, confirmed: true, credited: true }]);
    // It is on the chain: the node has its receipt.
    const receipt = await emu.call('POST', '/__emulator/chains/80002/rpc', {
      body: { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [txHash] },
    });
    expect(receipt.body.result.status).toBe('0x1');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('is disabled on a network without a local chain (Tron, Solana stay simulated)', async () => {
    const inv = await invoice(emu, { amount: '3.00', networkId: 2494104990 });
    const page = await browser.newPage();
    await page.goto(inv.checkoutUrl);
    expect(await page.isDisabled('#pay-wallet')).toBe(true);
    expect(await page.getAttribute('#pay-wallet', 'title')).toMatch(/no local chain/);
    await page.close();
  });

  it('is not on the page without local chains, nor on a live invoice', async () => {
    const inv = await invoice(plain);
    const page = await browser.newPage();
    await page.goto(inv.checkoutUrl);
    expect(await page.$('#pay-wallet')).toBeNull();
    expect(await page.$('[data-action="pay-full"]')).not.toBeNull();
    const live = await emu.call('POST', '/v1/invoices', { key: emu.keys.live.merchantKey, body: { amount: '1.00' }, idempotencyKey: ikey() });
    await page.goto(live.body.checkoutUrl);
    expect(await page.$('#pay-wallet')).toBeNull();
    await page.close();
  });
});
