import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/**
 * The dashboard and a remote control plane (CONTRACT §12, issue 28): reached through this machine's
 * non-loopback address, where the emulator wants its control token, the page asks for it in a form
 * (a wrong one is said so), keeps it for the tab, and the live change feed carries it; `#token=…`
 * (what `svc open` passes) is taken from the fragment and removed from the address bar.
 */
const TOKEN = 'dashboard-token-0123456789';
const address = Object.values(os.networkInterfaces())
  .flat()
  .find((info) => info?.family === 'IPv4' && !info.internal)?.address;

let browser: Browser;
let emu: TestEmulator;
let remote: string;

beforeAll(async () => {
  if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
  browser = await launchBrowser();
  emu = await startTestEmulator({ host: '0.0.0.0', allowedHosts: [address], config: { controlToken: TOKEN } });
  remote = `http://${address}:${emu.port}`;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await emu?.stop();
});

async function open(hash = '', origin = remote): Promise<Page & { errors: string[]; refused: string[] }> {
  const page = (await browser.newPage({ viewport: { width: 1100, height: 800 } })) as Page & { errors: string[]; refused: string[] };
  page.errors = [];
  page.refused = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('response', (r) => {
    if (r.status() === 403) page.refused.push(new URL(r.url()).pathname);
  });
  await page.goto(`${origin}/__emulator/ui/${hash}`);
  return page;
}
const live = (page: Page) =>
  page
    .locator('#live')
    .filter({ hasText: /^live$/ })
    .waitFor();

async function createInvoice(referenceId: string) {
  const created = await emu.client.test.createInvoice({ body: { amount: '3.00', referenceId }, idempotencyKey: ikey() });
  if (!created.ok) throw new Error(JSON.stringify(created));
  return created.data;
}

describe('the dashboard behind a load balancer', () => {
  it('asks for the control token once, says when it is refused, then works live with it', async () => {
    const page = await open();
    const form = page.getByRole('heading', { name: 'Control token' });
    await form.waitFor();
    await shoot(page, 'asked');
    await page.getByLabel('Token').fill('wrong-token-0123456789');
    await page.getByRole('button', { name: 'Use this token' }).click();
    await page.getByText('The emulator refused that token').waitFor();
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Use this token' }).click();
    await live(page);
    expect(await form.count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem('svc-control-token'))).toBe(TOKEN);

    // The change feed carries the token: an invoice made elsewhere shows without a reload.
    const inv = await createInvoice('made-elsewhere');
    await page.getByRole('link', { name: inv.id }).waitFor();
    // A control action from the page works with it (the clock advances).
    await page.goto(`${remote}/__emulator/ui/#/clock`);
    await live(page);
    expect(await form.count()).toBe(0);
    await page.getByRole('button', { name: 'Advance' }).click();
    await page.getByText('+1h ahead of real time').waitFor();
    await shoot(page, 'clock');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('takes the token from #token=…, and removes it from the address bar', async () => {
    const page = await open(`#token=${encodeURIComponent(TOKEN)}`);
    await live(page);
    expect(page.url()).toBe(`${remote}/__emulator/ui/`);
    // Replaced, not pushed: going back leaves the dashboard (for the page's first entry, about:blank).
    await page.goBack();
    expect(page.url()).not.toContain('token');
    await page.goForward();
    expect(page.url()).toBe(`${remote}/__emulator/ui/`);
    await live(page);
    expect(await page.getByRole('heading', { name: 'Control token' }).count()).toBe(0);
    expect(page.refused).toEqual([]);
    const inv = await createInvoice('with-fragment');
    await page.getByRole('link', { name: inv.id }).waitFor();
    await shoot(page, 'fragment');
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

describe('the dashboard on loopback with a control token (CONTRACT §8, issue 40)', () => {
  it('asks for the token there too (a same-host proxy forwards from loopback); svc open’s #token=… makes its data calls work', async () => {
    const local = `http://127.0.0.1:${emu.port}`;
    const asked = await open('', local);
    await asked.getByRole('heading', { name: 'Control token' }).waitFor();
    expect(asked.refused).toContain('/__emulator/keys');
    await asked.close();

    const page = await open(`#token=${encodeURIComponent(TOKEN)}`, local);
    await live(page);
    const inv = await createInvoice('on-loopback');
    await page.getByRole('link', { name: inv.id }).waitFor();
    expect(page.refused).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

/** Set SCREENSHOT_DIR to keep what these tests see, to look at it. */
async function shoot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOT_DIR;
  if (dir) await page.screenshot({ path: path.join(dir, `dashboard-token-${name}.png`), fullPage: true });
}
