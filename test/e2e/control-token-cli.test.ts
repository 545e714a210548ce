/**
 * The CLI sends SVC_CONTROL_TOKEN to a remote control plane (CONTRACT §12; a container's published
 * port, docs/container.md): `svc time show` through a non-loopback address works with it, and is
 * refused (exit 1, control_plane_forbidden) without it.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'cli-token-0123456789';
const address = Object.values(os.networkInterfaces())
  .flat()
  .find((info) => info?.family === 'IPv4' && !info.internal)?.address;

let emu: TestEmulator;
beforeAll(async () => {
  if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
  emu = await startTestEmulator({ host: '0.0.0.0', allowedHosts: [address], config: { controlToken: TOKEN } });
});
afterAll(() => emu?.stop());

describe('svc and a remote control plane', () => {
  it('sends the control token from SVC_CONTROL_TOKEN; without it the answer is 403', async () => {
    const dir = tempDir();
    const env = { SVC_BASE_URL: `http://${address}:${emu.port}`, SVC_PARTNER_KEY: emu.keys.test.partnerKey };
    const refused = await runCli(['time', 'show', '--json'], { cwd: dir, env });
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('control_plane_forbidden');
    const shown = await runCli(['time', 'show', '--json'], { cwd: dir, env: { ...env, SVC_CONTROL_TOKEN: TOKEN } });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).now).toBeDefined();
  });
});
