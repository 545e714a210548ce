/**
 * CONTRACT §8 in a real browser (Debian's Chromium): a page from another local origin cannot wipe
 * the emulator with a form post, and a page whose name rebinds to 127.0.0.1 cannot read the keys.
 * `--host-resolver-rules` plays the attacker's DNS: `rebind.test` answers 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let browser: Browser;
const servers: http.Server[] = [];
const emulators: TestEmulator[] = [];

beforeAll(async () => {
  browser = await launchBrowser(['--host-resolver-rules=MAP rebind.test 127.0.0.1']);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all(emulators.map((e) => e.stop()));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

/** A local web server that answers every GET with `html`, like an attacker's (or any other dev) page. */
async function pageServer(html: string, port = 0): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
  return { server, port: (server.address() as AddressInfo).port };
}

async function emulatorWithData(options: Parameters<typeof startTestEmulator>[0] = {}) {
  const emu = await startTestEmulator(options);
  emulators.push(emu);
  const created = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '10.00' } });
  expect(created.status, created.text).toBe(201);
  return { emu, invoiceId: created.body.id as string };
}

describe('a page from another origin', () => {
  it('submits a real form post to /__emulator/reset: refused, and the data survives', async () => {
    const { emu, invoiceId } = await emulatorWithData();
    const partnersBefore = emu.store.sqlite.prepare('SELECT COUNT(*) AS n FROM partners').get();
    const attacker = await pageServer(`<!doctype html>
      <form id="f" method="post" action="${emu.url}/__emulator/reset"><input name="x" value="1"></form>
      <script>
        // A no-cors fetch as well: the response is opaque, but the request would still be sent.
        fetch(${JSON.stringify(`${emu.url}/__emulator/partners`)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{}' })
          .finally(() => document.getElementById('f').submit());
      </script>`);
    const page = await browser.newPage();
    const answered = page.waitForResponse((r) => r.url() === `${emu.url}/__emulator/reset`);
    await page.goto(`http://localhost:${attacker.port}/`);
    const response = await answered;
    expect(response.status()).toBe(403);
    expect(JSON.parse(await response.text()).error.code).toBe('cross_site_request');
    await page.close();

    const read = await emu.call('GET', `/v1/invoices/${invoiceId}`, { key: emu.keys.test.merchantKey });
    expect(read.status, 'the invoice survived').toBe(200);
    expect(emu.store.sqlite.prepare('SELECT COUNT(*) AS n FROM partners').get()).toEqual(partnersBefore);
  });
});

describe('DNS rebinding', () => {
  it('a page loaded from rebind.test, whose name then points at the emulator, cannot read the keys', async () => {
    // The attacker's server answers first on the port; then "DNS" hands that name and port to the emulator.
    const attacker = await pageServer('<!doctype html><title>innocent</title>');
    const page = await browser.newPage();
    await page.goto(`http://rebind.test:${attacker.port}/`);
    attacker.server.closeAllConnections();
    await new Promise((r) => attacker.server.close(r));
    const { emu } = await emulatorWithData({ port: attacker.port });

    const seen = await page.evaluate(async () => {
      const res = await fetch('/__emulator/keys');
      return { status: res.status, text: await res.text() };
    });
    expect(seen.status).toBe(403);
    expect(JSON.parse(seen.text).error.code).toBe('host_not_allowed');
    expect(seen.text).not.toContain(emu.keys.test.partnerKey);
    await page.close();
  });
});
