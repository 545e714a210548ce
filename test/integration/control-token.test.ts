import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { request, startTestEmulator } from '../helpers/emulator.js';

/**
 * CONTRACT §12 "Remote control plane", §8 "A control token guards every client": with a control
 * token, /__emulator/… answers any client that sends it and no other, exposed or not, loopback
 * included (a same-host proxy forwards other people's requests from there; issue 40).
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
      const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
      const clock = (await emu.call('GET', '/__emulator/clock', auth)).body;

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
      expect((await emu.call('GET', '/__emulator/clock', auth)).body.offsetSeconds).toBe(clock.offsetSeconds);

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

      // With a token, loopback proves nothing (CONTRACT §8, issue 40): a same-host proxy forwards
      // everyone's requests from there. Loopback clients send the token like any other.
      const local = `http://127.0.0.1:${emu.port}`;
      for (const [method, path] of [
        ['GET', '/__emulator/health'],
        ['GET', '/__emulator/keys'],
        ['GET', '/__emulator/requests'],
        ['GET', '/__emulator/snapshots'],
        ['POST', '/__emulator/reset'],
        ['POST', '/__emulator/faults'],
      ] as const) {
        const refused = await request(local, method, path, { body: method === 'POST' ? {} : undefined });
        expect([refused.status, refused.body?.error?.code], `${method} ${path}`).toEqual([403, 'control_plane_forbidden']);
      }
      expect((await request(local, 'GET', '/__emulator/keys', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
      expect((await request(local, 'GET', '/__emulator/health', { headers: { 'svc-control-token': TOKEN } })).status).toBe(200);
      // The in-process client carries the token (startEmulator's config).
      expect((await emu.client.test.getClock()).ok).toBe(true);
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
