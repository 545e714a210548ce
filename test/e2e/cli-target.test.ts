import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runInProcess, spawnCli, type LiveCli, type RunResult } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Where commands talk to, in the documented precedence: flags > environment > profile > local
 * emulator (`.svc/dev.json`, written by a real `svc dev`). Each layer points at a different real
 * emulator, so `merchants list` shows which one answered (each has its own default merchant), and
 * `svc status` must name the source of every value.
 *
 * When `svc dev` stops cleanly it removes its state file: commands then have no target at all, a
 * user error (exit 1, "no service to talk to" and how to fix it). When it dies without cleaning up
 * (SIGKILL), the stale file is ignored (issue 22; CONTRACT §8): commands have no target (exit 1),
 * and `svc status` shows the file with its process not running.
 */
const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };

const project = tempDir('svc-target-');
const deep = path.join(project, 'src', 'deeper');
const stateFile = path.join(project, '.svc', 'dev.json');

let flagEmu: TestEmulator;
let envEmu: TestEmulator;
let profileEmu: TestEmulator;
let dev: LiveCli;
let local: { baseUrl: string; test: { partnerKey: string; merchantKey: string; merchantId: string } };

function svc(args: string[], env: Record<string, string> = {}, cwd = project): Promise<RunResult> {
  return runInProcess(args, { cwd, env: { ...NO_TARGET, ...env } });
}
function json(r: RunResult, code = 0): any {
  expect(r.code, r.stderr).toBe(code);
  return JSON.parse(r.stdout);
}
/** The default merchant ids the answering emulator lists (its partner key's merchants). */
async function merchantsSeen(r: Promise<RunResult>): Promise<string[]> {
  return json(await r).data.map((m: { merchantId: string }) => m.merchantId);
}

beforeAll(async () => {
  [flagEmu, envEmu, profileEmu] = await Promise.all([startTestEmulator(), startTestEmulator(), startTestEmulator()]);
  fs.mkdirSync(deep, { recursive: true });
  // A project: .svc/dev.json is searched up to the project root and never above it.
  fs.writeFileSync(path.join(project, 'package.json'), '{"name":"target","private":true}\n');
  fs.writeFileSync(
    path.join(project, 'svc.config.json'),
    JSON.stringify(
      { profiles: { staging: { baseUrl: profileEmu.url, partnerKey: profileEmu.keys.test.partnerKey, merchantKey: profileEmu.keys.test.merchantKey } } },
      null,
      2,
    ),
  );
  dev = spawnCli(['dev', '--port', '0', '--json', '--memory'], { cwd: project, env: NO_TARGET });
  local = JSON.parse(await dev.waitForLine((l) => l.includes('"type":"ready"')));
});
afterAll(async () => {
  await dev?.stop('SIGKILL');
  await Promise.all([flagEmu, envEmu, profileEmu].map((e) => e?.stop()));
});

describe('precedence: flags > environment > profile > local emulator', () => {
  const envLayer = () => ({
    SVC_BASE_URL: envEmu.url,
    SVC_PARTNER_KEY: envEmu.keys.test.partnerKey,
    SVC_MERCHANT_KEY: envEmu.keys.test.merchantKey,
    SVC_PROFILE: 'staging',
  });

  it('flags win over the environment, the profile and the local emulator', async () => {
    const flags = ['--base-url', flagEmu.url, '--api-key', flagEmu.keys.test.partnerKey];
    const s = json(await svc(['status', '--json', ...flags], envLayer()));
    expect(s).toMatchObject({ baseUrl: flagEmu.url, baseUrlSource: 'flag', partnerKey: { source: 'flag' }, answers: true });
    // Keys come together from one layer: --api-key gave a partner key, so there is no merchant key
    // (the environment's belongs to another service altogether).
    expect(s.merchantKey).toBeNull();
    expect(s.localEmulator).toMatchObject({ stateFile, running: true, inUse: false });
    expect(await merchantsSeen(svc(['merchants', 'list', '--json', ...flags], envLayer()))).toEqual([flagEmu.keys.test.merchantId]);
  });

  it('the environment wins over the profile and the local emulator', async () => {
    const s = json(await svc(['status', '--json'], envLayer()));
    expect(s).toMatchObject({
      baseUrl: envEmu.url,
      baseUrlSource: 'environment',
      partnerKey: { source: 'environment' },
      merchantKey: { source: 'environment' },
      profile: 'staging',
    });
    expect(await merchantsSeen(svc(['merchants', 'list', '--json'], envLayer()))).toEqual([envEmu.keys.test.merchantId]);
  });

  it('the profile (SVC_PROFILE or --profile) wins over the local emulator', async () => {
    for (const [args, env] of [
      [[], { SVC_PROFILE: 'staging' }],
      [['--profile', 'staging'], {}],
    ] as const) {
      const s = json(await svc(['status', '--json', ...args], env));
      expect(s).toMatchObject({
        baseUrl: profileEmu.url,
        baseUrlSource: 'profile staging',
        profile: 'staging',
        partnerKey: { source: 'profile staging' },
        merchantKey: { source: 'profile staging' },
        localEmulator: { inUse: false },
      });
      expect(await merchantsSeen(svc(['merchants', 'list', '--json', ...args], env))).toEqual([profileEmu.keys.test.merchantId]);
    }
    const unknown = await svc(['status', '--profile', 'nope'], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no profile "nope"');
    expect(unknown.stderr).toContain('Known profiles: staging.');
  });

  it('a mistyped profile is a usage error (exit 2) with the closest one, from --profile or SVC_PROFILE (spawned CLI)', async () => {
    const typo = await runCli(['invoices', 'list', '--profile', 'stagign'], { cwd: project, env: NO_TARGET });
    expect(typo.code).toBe(2);
    expect(typo.stderr.split('\n')[0]).toBe(
      `error --profile: no profile "stagign" in ${path.join(project, 'svc.config.json')}. Did you mean "staging"? Known profiles: staging.`,
    );
    expect(typo.stderr).toContain('(add --help for usage)');
    const json = await runCli(['invoices', 'list', '--json'], { cwd: project, env: { ...NO_TARGET, SVC_PROFILE: 'stagign' } });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'usage_error', param: 'SVC_PROFILE' });
  });

  it('with nothing else, the local emulator that `svc dev` recorded (spawned CLI)', async () => {
    const r = await runCli(['status', '--json'], { cwd: project, env: NO_TARGET });
    expect(json(r)).toMatchObject({
      baseUrl: local.baseUrl,
      baseUrlSource: 'local emulator',
      profile: null,
      partnerKey: { source: 'local emulator', environment: 'test' },
      merchantKey: { source: 'local emulator', environment: 'test' },
      localEmulator: { stateFile, baseUrl: local.baseUrl, pid: dev.child.pid, running: true, inUse: true },
      answers: true,
      service: { kind: 'emulator' },
    });
    const human = await runCli(['status'], { cwd: project, env: NO_TARGET });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^service\\s+${local.baseUrl}  \\(local emulator\\)$`, 'm'));
    expect(human.stdout).toMatch(/^merchant key\s+test_\w{4}…\w{4} {2}\(local emulator, test\)$/m);
    const created = json(await runCli(['invoices', 'create', '--amount', '1.00', '--json'], { cwd: project, env: NO_TARGET }));
    expect(created.checkoutUrl).toBe(`${local.baseUrl}/checkout/${created.id}`);
  });

  it('a subdirectory finds it too', async () => {
    expect(json(await svc(['status', '--json'], {}, deep))).toMatchObject({
      baseUrl: local.baseUrl,
      baseUrlSource: 'local emulator',
      localEmulator: { stateFile },
    });
    expect(await merchantsSeen(svc(['merchants', 'list', '--json'], {}, deep))).toEqual([local.test.merchantId]);
  });
});

describe('the key given is the key sent (issue 11)', () => {
  /** A second merchant of the local emulator's partner, with its own key: "another merchant". */
  let other: { merchantId: string; merchantKey: string };
  let invoiceId: string;

  beforeAll(async () => {
    const m = json(await svc(['merchants', 'create', '--external-tenant-id', 'other', '--name', 'Other', '--email', 'o@example.com', '--json']));
    const k = json(await svc(['merchants', 'keys', m.merchantId, '--json']));
    other = { merchantId: m.merchantId, merchantKey: k.merchantKey };
    // An invoice of the default merchant, created with the local emulator's keys.
    invoiceId = json(await svc(['invoices', 'create', '--amount', '3.00', '--json'])).id;
  });

  it("--api-key with another merchant's key: get, list and pay see only that merchant's invoices, as curl would", async () => {
    const flag = ['--api-key', other.merchantKey];
    const got = await svc(['invoices', 'get', invoiceId, '--json', ...flag]);
    expect(json(got, 1).error).toMatchObject({ code: 'invoice_not_found' });
    const paid = await svc(['invoices', 'pay', invoiceId, '--json', ...flag]);
    expect(json(paid, 1).error).toMatchObject({ code: 'invoice_not_found' });
    expect(json(await svc(['invoices', 'get', invoiceId, '--json'])).status).toBe('CREATED');
    expect(json(await svc(['invoices', 'list', '--json', ...flag])).data).toEqual([]);
    // The environment is a given key too: the local emulator does not add its partner key to it.
    expect(json(await svc(['invoices', 'get', invoiceId, '--json'], { SVC_MERCHANT_KEY: other.merchantKey }), 1).error.code).toBe('invoice_not_found');
  });

  it('a command that needs a partner key says so as a usage error naming --api-key (exit 2), sending nothing', async () => {
    for (const args of [
      ['merchants', 'list'],
      ['webhook', 'get'],
      ['webhook', 'deliveries', 'list'],
    ]) {
      const r = await svc([...args, '--json', '--api-key', other.merchantKey]);
      const error = json(r, 2).error;
      expect(error).toMatchObject({ code: 'usage_error', param: '--api-key' });
      expect(error.message).toContain(
        `\`svc ${args.join(' ')}\` needs a partner key, and --api-key gave a merchant key (test_…${other.merchantKey.slice(-4)})`,
      );
    }
  });

  it('svc status reports exactly the keys commands send', async () => {
    const s = json(await svc(['status', '--json', '--api-key', other.merchantKey]));
    expect(s).toMatchObject({ baseUrlSource: 'local emulator', partnerKey: null, merchantKey: { source: 'flag', environment: 'test' } });
    expect(s.merchantKey.hint.endsWith(other.merchantKey.slice(-4))).toBe(true);
    const human = await svc(['status', '--api-key', other.merchantKey]);
    expect(human.stdout).toMatch(/^partner key\s+none$/m);
  });

  it('--verbose names the key each request carried on stderr: its prefix and last four characters (spawned)', async () => {
    const r = await runCli(['invoices', 'get', invoiceId, '--verbose', '--api-key', other.merchantKey], { cwd: project, env: NO_TARGET });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`GET /v1/invoices/${invoiceId} with test_…${other.merchantKey.slice(-4)} (merchant key, flag)`);
    expect(r.stderr).not.toContain(other.merchantKey);
    const local = await runCli(['invoices', 'get', invoiceId, '--verbose'], { cwd: project, env: NO_TARGET });
    expect(local.code).toBe(0);
    expect(local.stderr).toMatch(new RegExp(`^GET /v1/partner/invoices/${invoiceId} with pt_test_…\\w{4} \\(partner key, local emulator\\)$`, 'm'));
  });
});

describe('after `svc dev` stops', () => {
  it('SIGINT removes the state file: no target, exit 1 with what to do', async () => {
    expect(await dev.stop('SIGINT')).toBe(0);
    expect(fs.existsSync(stateFile)).toBe(false);
    const r = await runCli(['invoices', 'list'], { cwd: project, env: NO_TARGET });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no service to talk to');
    expect(r.stderr).toContain('svc dev');
    const s = json(await svc(['status', '--json']), 1);
    expect(s).toMatchObject({
      baseUrl: null,
      baseUrlSource: null,
      answers: false,
      localEmulator: null,
      problem: expect.stringContaining('no service to talk to'),
    });
  });

  it('a killed `svc dev` leaves a stale file: ignored, no target (exit 1); status shows it not running', async () => {
    const again = spawnCli(['dev', '--port', '0', '--json', '--memory'], { cwd: project, env: NO_TARGET });
    const ready = JSON.parse(await again.waitForLine((l) => l.includes('"type":"ready"')));
    await again.stop('SIGKILL');
    expect(fs.existsSync(stateFile)).toBe(true);
    const r = await svc(['invoices', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no service to talk to');
    const s = json(await svc(['status', '--json']), 1);
    expect(s).toMatchObject({ baseUrl: null, answers: false, localEmulator: { stateFile, baseUrl: ready.baseUrl, running: false, inUse: false } });
    const human = await svc(['status']);
    expect(human.stdout).toMatch(/^local emulator\s+.*not running \(stale file\), not in use$/m);
  });
});
