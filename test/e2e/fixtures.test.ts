import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyFixtureFile, defaultIdempotencyKey } from '../../src/cli/commands/fixtures/run.js';
import { ROOT, runInProcess, spawnCli, type LiveCli } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `svc fixtures apply` against a real emulator, in-process (the same program and handlers as the
 * binary), plus `svc dev --fixtures` spawned from the build.
 */
let emu: TestEmulator;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-fixtures-');
  env = { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey, SVC_MERCHANT_KEY: emu.keys.test.merchantKey };
});
afterAll(() => emu.stop());

const TEMPLATE = path.join(ROOT, 'templates', 'svc.fixtures.yaml');

function write(name: string, content: unknown): string {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return name;
}

const apply = (file: string, extra: string[] = [], moreEnv: Record<string, string> = {}) =>
  runInProcess(['fixtures', 'apply', file, ...extra], { cwd: dir, env: { ...env, ...moreEnv } });

async function invoicesWithReference(referenceId: string): Promise<unknown[]> {
  const list = await emu.call('GET', '/v1/partner/invoices?limit=100', { key: emu.keys.test.partnerKey });
  return (list.body.data as { referenceId: string | null }[]).filter((i) => i.referenceId === referenceId);
}

describe('svc fixtures apply', () => {
  it('runs the template: a merchant, two invoices referring to it, a payment; --json maps step names to responses', async () => {
    fs.copyFileSync(TEMPLATE, path.join(dir, 'svc.fixtures.yaml'));
    const run = await apply('svc.fixtures.yaml', ['--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(Object.keys(out)).toEqual(['merchant', 'small-invoice', 'large-invoice', 'pay-small']);
    expect(out.merchant.externalTenantId).toBe('tenant-demo'); // ${env:TENANT_ID|tenant-demo}, unset
    expect(out['small-invoice'].merchantId).toBe(out.merchant.merchantId);
    expect(out['large-invoice']).toMatchObject({ merchantId: out.merchant.merchantId, amount: '120.00' });
    expect(out['large-invoice'].addresses.map((a: { networkId: number }) => a.networkId)).toEqual([84532]);
    expect(out['pay-small'].invoice).toMatchObject({ id: out['small-invoice'].id, status: 'PAID', amountReceived: '5.00' });
    const read = await emu.call('GET', `/v1/partner/invoices/${out['small-invoice'].id}`, { key: emu.keys.test.partnerKey });
    expect(read.body.status).toBe('PAID');
  });

  it('re-running the same file creates nothing twice: the same ids, every step a 200 replay, one payment', async () => {
    // Another tenant: the partner already has tenant-demo's merchant, made under another key.
    const tenant = { TENANT_ID: 'tenant-again' };
    fs.copyFileSync(TEMPLATE, path.join(dir, 'again.yaml'));
    const first = JSON.parse((await apply('again.yaml', ['--json'], tenant)).stdout);
    const second = await apply('again.yaml', [], tenant);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^step\s+request\s+status\s+id$/m);
    for (const step of ['merchant', 'small-invoice', 'large-invoice', 'pay-small']) {
      expect(second.stdout).toMatch(new RegExp(`^${step}\\s+POST /v1/\\S+\\s+200 replayed\\s+[0-9a-f-]{36}$`, 'm'));
    }
    expect(second.stdout).toContain('4 steps from again.yaml in');
    expect(second.stdout).toContain('0 created, 4 replayed');
    const third = JSON.parse((await apply('again.yaml', ['--json'], tenant)).stdout);
    expect(third).toEqual(first);
    // The payment was made once: the small invoice received 5.00, not 10.00.
    const read = await emu.call('GET', `/v1/partner/invoices/${first['small-invoice'].id}`, { key: emu.keys.test.partnerKey });
    expect(read.body.amountReceived).toBe('5.00');
    const merchants = await emu.call('GET', '/v1/partner/merchants?limit=100', { key: emu.keys.test.partnerKey });
    expect(merchants.body.data.filter((m: { merchantId: string }) => m.merchantId === first.merchant.merchantId)).toHaveLength(1);
  });

  it('derives default idempotency keys from the path relative to the current folder and the step name', () => {
    const expected = `fixtures:${createHash('sha256').update('seed/f.yaml\0merchant').digest('hex').slice(0, 32)}`;
    expect(defaultIdempotencyKey('seed/f.yaml', 'merchant')).toBe(expected);
    expect(defaultIdempotencyKey('seed/f.yaml', 'merchant')).toMatch(/^fixtures:[0-9a-f]{32}$/);
    expect(defaultIdempotencyKey('f.yaml', 'merchant')).not.toBe(expected);
  });

  it('takes environment values over defaults', async () => {
    fs.copyFileSync(TEMPLATE, path.join(dir, 'from-env.yaml'));
    const run = await apply('from-env.yaml', ['--json'], { TENANT_ID: 'tenant-from-env', LARGE_AMOUNT: '7.50' });
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.merchant.externalTenantId).toBe('tenant-from-env');
    expect(out['large-invoice'].amount).toBe('7.50');
  });

  it('keeps the JSON type of a string that is exactly one reference, interpolates text otherwise, and $${ is a literal', async () => {
    const file = write('types.json', {
      steps: [
        { name: 'locked', method: 'POST', path: '/v1/invoices', body: { amount: '3.25', networkId: 84532 } },
        {
          name: 'copy',
          method: 'POST',
          path: '/v1/invoices',
          body: {
            amount: '${locked:amount}',
            networkId: '${locked:addresses.0.networkId}', // a number: the API refuses a string here
            referenceId: 'net-${locked:addresses.0.networkId}-${env:SVC_FIXTURE_TEST_SUFFIX|x}-$${literal}',
          },
        },
        { name: 'read', method: 'GET', path: '/v1/invoices/${copy:id}' },
      ],
    });
    const run = await apply(file, ['--json']);
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout);
    expect(out.copy.addresses.map((a: { networkId: number }) => a.networkId)).toEqual([84532]);
    expect(out.copy.referenceId).toBe('net-84532-x-${literal}');
    expect(out.read.id).toBe(out.copy.id);
  });

  it('uses the merchant key under /v1/invoices and the partner key elsewhere, unless apiKey says otherwise', async () => {
    const file = write(
      'keys.yaml',
      [
        '- name: mine',
        '  method: POST',
        '  path: /v1/invoices',
        '  body: { amount: "1.00" }',
        '- name: pay-as-merchant',
        '  method: POST',
        '  path: /v1/test_helpers/invoices/${mine:id}/payments',
        '  apiKey: merchant',
        '  body: {}',
        '- name: as-partner',
        '  method: GET',
        '  path: /v1/partner/invoices/${mine:id}',
      ].join('\n'),
    );
    const run = await apply(file, ['--json']);
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout);
    expect(out.mine.merchantId).toBeUndefined(); // the merchant variant
    expect(out['pay-as-merchant'].invoice.merchantId).toBeUndefined();
    expect(out['as-partner']).toMatchObject({ id: out.mine.id, merchantId: emu.keys.test.merchantId, status: 'PAID' });
  });

  // Issue 26: a step is resolved to the contract's operation, whose key it sends; no guess from the path.
  it('sends the key its operation takes: a partner-key control-plane step works; a path the API lacks stops the run before sending', async () => {
    const file = write(
      'operations.yaml',
      [
        '- name: chaos',
        '  method: PUT',
        '  path: /__emulator/webhook-chaos',
        '  body: { duplicate: 0.5, seed: 7 }',
        '- name: clock',
        '  method: GET',
        '  path: /__emulator/clock',
        '- name: nowhere',
        '  method: POST',
        '  path: /v1/nowhere',
        '  body: {}',
      ].join('\n'),
    );
    const run = await apply(file, ['--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.message).toMatch(/step 3 of 3 "nowhere": the API has no POST \/v1\/nowhere/);
    const chaos = await emu.call('GET', '/__emulator/webhook-chaos', { key: emu.keys.test.partnerKey });
    expect(chaos.body).toMatchObject({ active: true, duplicate: 0.5, seed: 7 });
    await emu.call('DELETE', '/__emulator/webhook-chaos', { key: emu.keys.test.partnerKey });
  });

  it('stops at a failing step: its name, the request and the service error, exit 1, and nothing after it runs', async () => {
    const file = write(
      'failing.yaml',
      [
        'steps:',
        '  - name: invoice',
        '    method: POST',
        '    path: /v1/invoices',
        '    body: { amount: "3.00" }',
        '  - name: pay-on-mainnet',
        '    method: POST',
        '    path: /v1/test_helpers/invoices/${invoice:id}/payments',
        '    body: { amount: "1.00", networkId: 1 }',
        '  - name: after',
        '    method: POST',
        '    path: /v1/invoices',
        '    body: { amount: "4.00", referenceId: never-created }',
      ].join('\n'),
    );
    const run = await apply(file);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('failing.yaml: step 2 of 3 "pay-on-mainnet" failed');
    expect(run.stderr).toMatch(/request: POST \/v1\/test_helpers\/invoices\/[0-9a-f-]{36}\/payments/);
    expect(run.stderr).toContain('body:    {"amount":"1.00","networkId":1}');
    expect(run.stderr).toMatch(/error: {3}400 route_not_available \(networkId\): /);
    expect(await invoicesWithReference('never-created')).toEqual([]);

    const json = await apply(file, ['--json']);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout);
    expect(doc.error.code).toBe('fixture_step_failed');
    expect(doc.error.message).toContain('"pay-on-mainnet"');
    expect(doc.error.message).toContain('route_not_available');
  });

  it('checks the environment before running anything: a variable without a default names the step and the variable', async () => {
    const file = write(
      'env-missing.yaml',
      [
        '- name: first',
        '  method: POST',
        '  path: /v1/invoices',
        '  body: { amount: "1.00", referenceId: before-the-missing-env }',
        '- name: second',
        '  method: POST',
        '  path: /v1/invoices',
        '  body: { amount: "${env:SVC_FIXTURE_TEST_NEVER_SET}" }',
      ].join('\n'),
    );
    const run = await apply(file, [], { SVC_FIXTURE_TEST_NEVER_SET: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'env-missing.yaml:8: step 2 "second": body.amount: ${env:SVC_FIXTURE_TEST_NEVER_SET}: the environment variable SVC_FIXTURE_TEST_NEVER_SET is not set and has no default',
    );
    expect(await invoicesWithReference('before-the-missing-env')).toEqual([]);
  });

  it.each([
    [
      'unknown method',
      'm.yaml',
      '- name: a\n  method: FETCH\n  path: /v1/invoices\n',
      /^error m\.yaml:2: step 1 "a": method: Invalid option: expected one of "GET"\|"POST"\|"PUT"/,
    ],
    ['missing path', 'p.json', '[{"name":"a","method":"GET"}]', /^error p\.json:1: step 1 "a": path: required/],
    [
      'path not starting with /',
      'p2.yaml',
      'steps:\n  - name: a\n    method: GET\n    path: v1/invoices\n',
      /^error p2\.yaml:4: step 1 "a": path: must start with \//,
    ],
    [
      'duplicate name',
      'd.yaml',
      '- {name: a, method: GET, path: /v1/invoices}\n- {name: a, method: GET, path: /v1/invoices}\n',
      /^error d\.yaml:2: step 2 "a": name: "a" is already the name of step 1/,
    ],
    [
      'reference to a later step',
      'r.yaml',
      '- {name: a, method: GET, path: "/v1/invoices/${b:id}"}\n- {name: b, method: GET, path: /v1/invoices}\n',
      /^error r\.yaml:1: step 1 "a": path: \$\{b:id\}: no earlier step is named "b"/,
    ],
    [
      'unknown field',
      'u.yaml',
      '- name: a\n  method: POST\n  path: /v1/invoices\n  idempotency_key: x\n',
      /^error u\.yaml:4: step 1 "a": idempotency_key: unknown field/,
    ],
    ['wrong apiKey', 'k.yaml', '- {name: a, method: GET, path: /v1/invoices, apiKey: admin}\n', /^error k\.yaml:1: step 1 "a": apiKey: Invalid option/],
    ['body on a GET', 'g.yaml', '- {name: a, method: GET, path: /v1/invoices, body: {}}\n', /^error g\.yaml:1: step 1 "a": body: a GET step takes no body/],
    ['unterminated reference', 't.yaml', '- {name: a, method: GET, path: "/v1/invoices/${a"}\n', /^error t\.yaml:1: step 1 "a": path: unterminated reference/],
    ['YAML syntax', 's.yaml', 'steps:\n  - name: a\n    method: GET\n   path: x\n', /^error s\.yaml:4:1: not valid YAML: /],
    ['JSON syntax', 'j.json', '[{"name": "a",}]', /^error j\.json:1: not valid JSON: /],
    ['not a list', 'n.yaml', 'name: a\n', /^error n\.yaml: expected a list of steps, or an object with "steps: \[…\]"/],
    ['no steps', 'e.json', '{"steps": []}', /^error e\.json: the file has no steps/],
  ])('reports a bad file (%s) with the file, line, step and field, exit 1', async (_what, name, content, message) => {
    write(name, content);
    const run = await apply(name);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('reports every problem of a bad file, each with file, line, step and field; --json lists them; nothing runs', async () => {
    write(
      'many.yaml',
      [
        '- name: first', // 1
        '  method: POST',
        '  path: /v1/invoices',
        '  body: { amount: "1.00", referenceId: many-problems }',
        '- name: second', // 5
        '  method: FETCH',
        '  path: /v1/invoices',
        '  colour: blue',
        '- name: third', // 9
        '  method: GET',
        '  path: "/v1/invoices/${nope:id}"',
        '  body:',
        '    amount: "${env:SVC_FIXTURE_TEST_NEVER_SET}"',
      ].join('\n'),
    );
    const human = await apply('many.yaml', [], { SVC_FIXTURE_TEST_NEVER_SET: '' });
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr.split('\n').slice(0, 6)).toEqual([
      'error many.yaml: 5 problems; nothing was run',
      '  many.yaml:6: step 2 "second": method: Invalid option: expected one of "GET"|"POST"|"PUT"',
      '  many.yaml:8: step 2 "second": colour: unknown field (a step has name, method, path, body, idempotencyKey, apiKey)',
      '  many.yaml:13: step 3 "third": body: a GET step takes no body',
      '  many.yaml:11: step 3 "third": path: ${nope:id}: no earlier step is named "nope"',
      '  many.yaml:13: step 3 "third": body.amount: ${env:SVC_FIXTURE_TEST_NEVER_SET}: the environment variable SVC_FIXTURE_TEST_NEVER_SET is not set and has no default (write ${env:SVC_FIXTURE_TEST_NEVER_SET|default})',
    ]);
    const json = await apply('many.yaml', ['--json'], { SVC_FIXTURE_TEST_NEVER_SET: '' });
    expect(json.code).toBe(1);
    const { error } = JSON.parse(json.stdout);
    expect(error).toMatchObject({ code: 'fixtures_invalid', message: expect.stringContaining('5 problems') });
    expect(error.problems.map((p: { line: number; step: number; name: string; field: string }) => [p.line, p.step, p.name, p.field])).toEqual([
      [6, 2, 'second', 'method'],
      [8, 2, 'second', 'colour'],
      [13, 3, 'third', 'body'],
      [11, 3, 'third', 'path'],
      [13, 3, 'third', 'body.amount'],
    ]);
    expect(error.problems[0]).toMatchObject({ file: 'many.yaml', message: expect.stringContaining('Invalid option') });
    expect(await invoicesWithReference('many-problems')).toEqual([]);
  });

  it('reads YAML and JSON alike, a list or {steps}, and a file without extension by its content', async () => {
    const steps = [{ name: 'one', method: 'POST', path: '/v1/invoices', body: { amount: '2.00' } }];
    write('same.json', steps);
    write('same.yaml', `steps:\n  - name: one\n    method: post\n    path: /v1/invoices\n    body:\n      amount: "2.00"\n`);
    write('same-noext', JSON.stringify({ steps }));
    for (const file of ['same.json', 'same.yaml', 'same-noext']) {
      const run = await apply(file, ['--json']);
      expect(run.stderr, file).toBe('');
      expect(JSON.parse(run.stdout).one).toMatchObject({ amount: '2.00', status: 'CREATED' });
    }
  });

  it("runs docs/testing.md's example as written, and its bad-reference message is the one the doc shows", async () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'testing.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Fixtures'));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    write('fixtures.yaml', example);
    const tenant = { TENANT_ID: 'tenant-readme' };
    const first = await apply('fixtures.yaml', ['--json'], tenant);
    expect(first.stderr).toBe('');
    const out = JSON.parse(first.stdout);
    expect(out.paid.invoice).toMatchObject({ id: out.invoice.id, status: 'PAID' });
    expect(out.mine).toMatchObject({ amount: '9.99', status: 'CREATED' });
    const again = await apply('fixtures.yaml', [], tenant);
    expect(again.stdout).toContain('0 created, 4 replayed');

    write('fixtures.yaml', example.replace('${invoice:id}', '${invoce:id}'));
    const bad = await apply('fixtures.yaml', [], tenant);
    const shown = /`(fixtures\.yaml:\d+: step 3 "paid": path: [^`]*)`/.exec(section.replace(/\n\s*/g, ' '))![1]!;
    expect(bad.stderr).toContain(shown);
  });

  it('reports a missing file', async () => {
    const run = await apply('nope.yaml');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('nope.yaml: no such file');
  });

  it('runs 1,000 invoice steps quickly (steps run one by one over a kept-alive connection)', async () => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({
      name: `invoice-${i}`,
      method: 'POST',
      path: '/v1/invoices',
      body: { amount: '1.00', referenceId: `bulk-${i}` },
    }));
    write('bulk.json', steps);
    const target = { baseUrl: emu.url, partnerKey: emu.keys.test.partnerKey, merchantKey: emu.keys.test.merchantKey };
    const created = await applyFixtureFile('bulk.json', target, { cwd: dir, env: process.env });
    const replayed = await applyFixtureFile('bulk.json', target, { cwd: dir, env: process.env });
    const rate = (ms: number) => Math.round((1000 / ms) * 1000);
    // Emulator and client share this one process (and the machine runs other suites): the figures
    // are for reading; bench #10 is where speed is held to a target.
    console.log(
      `fixtures: 1000 creates in ${Math.round(created.durationMs)} ms (${rate(created.durationMs)} steps/s), 1000 replays in ${Math.round(replayed.durationMs)} ms (${rate(replayed.durationMs)} steps/s)`,
    );
    expect(created.steps.every((s) => s.status === 201)).toBe(true);
    expect(replayed.steps.every((s) => s.replayed)).toBe(true);
    expect(replayed.steps.map((s) => s.id)).toEqual(created.steps.map((s) => s.id));
    // No time bound here: it depended on the machine's load (and failed on PostgreSQL on a busy
    // machine); bench #10 measures fixtures' speed.
  }, 60_000);
});

describe('svc dev --fixtures', () => {
  const running: LiveCli[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
  });

  it('seeds once the emulator is up, and prints the responses as one NDJSON line', async () => {
    const cwd = tempDir('svc-dev-fixtures-');
    fs.copyFileSync(TEMPLATE, path.join(cwd, 'svc.fixtures.yaml'));
    const dev = spawnCli(['dev', '--port', '0', '--json', '--memory', '--fixtures', 'svc.fixtures.yaml'], { cwd });
    running.push(dev);
    const ready = JSON.parse(await dev.waitForLine((l) => l.includes('"type":"ready"')));
    const seeded = JSON.parse(await dev.waitForLine((l) => l.includes('"type":"fixtures"')));
    expect(seeded.file).toBe('svc.fixtures.yaml');
    expect(Object.keys(seeded.steps)).toEqual(['merchant', 'small-invoice', 'large-invoice', 'pay-small']);
    const read = await fetch(`${ready.baseUrl}/v1/partner/invoices/${seeded.steps['small-invoice'].id}`, {
      headers: { authorization: `Bearer ${ready.test.partnerKey}` },
    });
    expect(((await read.json()) as { status: string }).status).toBe('PAID');

    // `svc fixtures apply` from the same folder finds the emulator in .svc/dev.json and replays.
    const again = await runInProcess(['fixtures', 'apply', 'svc.fixtures.yaml', '--json'], { cwd });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)['small-invoice'].id).toBe(seeded.steps['small-invoice'].id);
  });

  it('prints the table in human mode, and stops with exit 1 when a step fails', async () => {
    const cwd = tempDir('svc-dev-fixtures-');
    fs.copyFileSync(TEMPLATE, path.join(cwd, 'svc.fixtures.yaml'));
    const dev = spawnCli(['dev', '--port', '0', '--memory', '--quiet', '--fixtures', 'svc.fixtures.yaml'], { cwd });
    running.push(dev);
    expect(await dev.waitForLine((l) => l.startsWith('pay-small'))).toMatch(
      /^pay-small\s+POST \/v1\/test_helpers\/invoices\/\S+\/payments\s+201 created\s+[0-9a-f-]{36}$/,
    );

    const other = tempDir('svc-dev-fixtures-');
    fs.writeFileSync(path.join(other, 'bad.yaml'), '- {name: negative, method: POST, path: /v1/invoices, body: {amount: "-1"}}\n');
    const failing = spawnCli(['dev', '--port', '0', '--memory', '--fixtures', 'bad.yaml'], { cwd: other });
    running.push(failing);
    expect(await failing.exited).toBe(1);
    expect(failing.stderr()).toContain('bad.yaml: step 1 of 1 "negative" failed');
    expect(failing.stderr()).toContain('400 validation_failed (amount)');
    // It stopped the emulator and removed its record.
    expect(fs.existsSync(path.join(other, '.svc', 'dev.json'))).toBe(false);
  });
});
