/**
 * The dashboard's page behind a load balancer (CONTRACT §10, §12; issue 28): with a control token,
 * its static shell is served to any client (a browser cannot send the token when it navigates; the
 * page then asks for it), while every control call it makes still needs the token. Without a token,
 * the page stays loopback-only (§7). Raw HTTP on purpose: the caller's address is the subject.
 */
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

const TOKEN = 'shell-token-0123456789';
const address = Object.values(os.networkInterfaces())
  .flat()
  .find((info) => info?.family === 'IPv4' && !info.internal)?.address;

let emu: TestEmulator | undefined;
afterEach(() => emu?.stop());

async function fromOutside(config: { controlToken?: string }) {
  if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
  emu = await startTestEmulator({ host: '0.0.0.0', allowedHosts: [address], config });
  return `http://${address}:${emu.port}`;
}

describe("the dashboard's shell from a non-loopback address", () => {
  it('is served with a control token set; its control calls still need the token', async () => {
    const remote = await fromOutside({ controlToken: TOKEN });
    const page = await request(remote, 'GET', '/__emulator/ui');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script type="module" src="/assets/ui.js">');
    const keys = await request(remote, 'GET', '/__emulator/keys');
    expect([keys.status, keys.body.error.code]).toEqual([403, 'control_plane_forbidden']);
    expect((await request(remote, 'GET', '/__emulator/keys', { headers: { 'svc-control-token': TOKEN } })).status).toBe(200);
  });

  it('is refused without a control token, as the rest of the control plane', async () => {
    const remote = await fromOutside({});
    const page = await request(remote, 'GET', '/__emulator/ui');
    expect([page.status, page.body.error.code]).toEqual([403, 'control_plane_forbidden']);
  });
});
