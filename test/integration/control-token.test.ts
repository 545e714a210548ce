import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { request, startTestEmulator } from '../helpers/emulator.js';

/**
 * CONTRACT §12 "Remote control plane", as the container image uses it (docs/container.md): with a
 * control token, /__emulator/… answers any client that sends it and no other non-loopback client,
 * exposed or not; loopback clients (a container's own health check) are served as before (§7).
 * Raw HTTP on purpose: the caller's address, the Host and the token headers are the subject.
 */
function externalIPv4(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) if (info.family === 'IPv4' && !info.internal) return info.address;
  }
  return undefined;
}

const TOKEN = 'tok-0123456789abcdef';

describe('control token', () => {
  const address = externalIPv4();

  it('serves the control plane to non-loopback clients with the token only, and loopback clients always', async () => {
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    // Exposed too: a configured token wins over exposure (the image exposes it by default).
    const emu = await startTestEmulator({ host: '0.0.0.0', allowedHosts: [address], config: { controlToken: TOKEN, exposeControlPlane: true } });
    try {
      const external = `http://${address}:${emu.port}`;
      const clock = (await emu.call('GET', '/__emulator/clock')).body;

      const wrong: Record<string, string>[] = [
        {},
        { authorization: 'Bearer wrong-token-0123456789' },
        { authorization: `Bearer ${TOKEN}x` },
        { 'svc-control-token': TOKEN.slice(0, -1) },
      ];
      for (const headers of wrong) {
        const refused = await request(external, 'POST', '/__emulator/clock/advance', { body: { seconds: 60 }, headers });
        expect(refused.status, refused.text).toBe(403);
        expect(refused.body.error.code).toBe('control_plane_forbidden');
        expect(refused.body.error.message).toContain('Authorization: Bearer <token>');
      }
      // Bad input changed nothing.
      expect((await emu.call('GET', '/__emulator/clock')).body.offsetSeconds).toBe(clock.offsetSeconds);

      const health = await request(external, 'GET', '/__emulator/health', { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(health.status, health.text).toBe(200);
      const advanced = await request(external, 'POST', '/__emulator/clock/advance', { body: { seconds: 60 }, headers: { authorization: `bearer  ${TOKEN}` } });
      expect(advanced.status, advanced.text).toBe(200);
      expect(advanced.body.offsetSeconds).toBe(clock.offsetSeconds + 60);

      // Routes that take an API key in Authorization (webhook chaos) take the token in its own header.
      const chaos = await request(external, 'GET', '/__emulator/webhook-chaos', { key: emu.keys.test.partnerKey, headers: { 'svc-control-token': TOKEN } });
      expect(chaos.status, chaos.text).toBe(200);
      const noToken = await request(external, 'GET', '/__emulator/webhook-chaos', { key: emu.keys.test.partnerKey });
      expect(noToken.status, noToken.text).toBe(403);

      // Loopback is the machine's own: served without the token, as without one (CONTRACT §7).
      expect((await request(`http://127.0.0.1:${emu.port}`, 'GET', '/__emulator/health')).status).toBe(200);
      // The API itself never looks at the token.
      expect((await request(external, 'GET', '/v1/partner/merchants', { key: emu.keys.test.partnerKey })).status).toBe(200);
    } finally {
      await emu.stop();
    }
  });

  it('without a token, a non-exposed control plane still refuses non-loopback clients, token or not', async () => {
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    const emu = await startTestEmulator({ host: '0.0.0.0', allowedHosts: [address] });
    try {
      const res = await request(`http://${address}:${emu.port}`, 'GET', '/__emulator/health', { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status, res.text).toBe(403);
      expect(res.body.error.message).toContain('--control-token');
    } finally {
      await emu.stop();
    }
  });

  it('refuses a control token too short to be safe, before opening anything', async () => {
    await expect(startTestEmulator({ config: { controlToken: 'short' } })).rejects.toThrow(/controlToken must be a string of 16 to 255 characters/);
  });

  it('puts the configured public URL in checkout URLs and allows its host', async () => {
    const emu = await startTestEmulator({ config: { publicUrl: 'http://svc.example.test:4747' } });
    try {
      expect(emu.url).toBe('http://svc.example.test:4747');
      const res = await request(`http://127.0.0.1:${emu.port}`, 'GET', '/__emulator/health', { headers: { host: 'svc.example.test:4747' } });
      expect(res.status, res.text).toBe(200);
    } finally {
      await emu.stop();
    }
  });
});
