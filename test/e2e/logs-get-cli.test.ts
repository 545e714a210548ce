import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ikey, request, type TestEmulator } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

/** `svc logs get <requestId>`: one request-journal entry (`getRequest`), spawned from the build. */
const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };
const { emulator } = perTest();
const svc = (emu: TestEmulator, ...args: string[]) => runCli(['logs', 'get', ...args, '--base-url', emu.url], { cwd: tempDir(), env: NO_TARGET });

describe('svc logs get', () => {
  it('prints the entry for a Request-Id: its line and both bodies; --json is the API entry as answered', async () => {
    const emu = await emulator();
    const created = await request(emu.url, 'POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '5.00' } });
    const id = created.headers.get('request-id')!;

    const human = await svc(emu, id);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}POST /v1/invoices 201 \\d+ ms {2}merchant test {2}${id}\\n`));
    // The line has the time of day, as the tails print it; the whole timestamp is on the next.
    expect(human.stdout.split('\n')[1]).toMatch(/^at \d{4}-\d\d-\d\dT[\d:.]+Z {2}· {2}key /);
    expect(human.stdout).toContain('Request body\n{\n  "amount": "5.00"\n}');
    expect(human.stdout).toContain(`"id": "${created.body.id}"`);

    const json = await svc(emu, id, '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual((await request(emu.url, 'GET', `/__emulator/requests/${id}`)).body);
  });

  it('exits 1 with request_not_found, in the error shape, for an id the journal does not hold', async () => {
    const emu = await emulator();
    const json = await svc(emu, 'req_000000000000000000000000', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'request_not_found' });
    const human = await svc(emu, 'req_000000000000000000000000');
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('request_not_found');
    expect(human.stdout).toBe('');
  });

  it('escapes control characters a client sent before they reach the terminal (CONTRACT §8)', async () => {
    const emu = await emulator();
    const refused = await request(emu.url, 'POST', '/v1/invoices', {
      key: emu.keys.test.merchantKey,
      idempotencyKey: ikey(),
      raw: '\u001b[2J\u001b]0;pwned\u0007',
      headers: { 'content-type': 'application/json' },
    });
    expect(refused.status).toBe(400);
    const human = await svc(emu, refused.headers.get('request-id')!);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(human.stdout).toContain('\\x1b[2J');
  });
});
