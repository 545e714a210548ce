/**
 * `svc openapi` builds the document from the contract in the CLI itself (issue 12): it works with
 * no emulator running, and prints exactly what an emulator at the target URL serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/contract/openapi/build.js';
import { VERSION } from '../../src/version.js';
import { runCli } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('svc-openapi-');
// Nothing from the caller's environment may name a target.
const env = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };
let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.stop());

describe('svc openapi', () => {
  it('needs no emulator: the document for the default address', async () => {
    const r = await runCli(['openapi', '--json'], { cwd: dir, env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.servers).toEqual([{ url: 'http://127.0.0.1:4747', description: 'The emulator' }]);
    expect(doc).toEqual(buildOpenApi(VERSION));
  });

  it('prints what the emulator at the target serves, byte for byte once parsed', async () => {
    const r = await runCli(['openapi', '--base-url', emu.url], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const served = await emu.call('GET', '/openapi.json');
    expect(JSON.parse(r.stdout)).toEqual(served.body);
  });
});
