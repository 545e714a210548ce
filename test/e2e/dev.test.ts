import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli, type LiveCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { freshPostgresDatabase, testEngine } from '../helpers/postgres-database.js';
import { startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

const running: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

function dev(args: string[], cwd: string) {
  const p = spawnCli(['dev', '--port', '0', ...args], { cwd });
  running.push(p);
  return p;
}

describe('svc dev --database (CONTRACT §12)', () => {
  it.runIf(testEngine() === 'postgres')('runs on PostgreSQL: the ready event and the banner say so, never with the password', async () => {
    const url = await freshPostgresDatabase();
    const password = decodeURIComponent(new URL(url).password);
    const json = dev(['--json', '--database', url], tempDir());
    const ready = JSON.parse(await json.waitForLine(() => true));
    expect(ready).toMatchObject({ type: 'ready', storage: 'postgres', database: url.replace(`:${new URL(url).password}@`, '@') });
    const created = await request(ready.baseUrl, 'POST', '/v1/invoices', { key: ready.test.merchantKey, body: { amount: '1.00' }, idempotencyKey: ikey() });
    expect(created.status).toBe(201);
    expect(await json.stop('SIGINT')).toBe(0);
    const human = dev(['--database', url], tempDir());
    await human.waitForLine((line) => line.includes('Database'));
    expect(human.lines.find((line) => line.includes('Database'))).toContain('PostgreSQL');
    expect(await human.stop('SIGINT')).toBe(0);
    for (const p of [json, human]) expect(p.lines.join('\n') + p.stderr()).not.toContain(password);
  });

  it('an unreachable server is one line naming the database without its password, exit 1', async () => {
    const dir = tempDir();
    // Through the environment, where a password belongs (on the command line it adds a warning line).
    const p = spawnCli(['dev', '--port', '0'], { cwd: dir, env: { SVC_DATABASE_URL: 'postgres://svc:hunter2-secret@127.0.0.1:1/sandbox' } });
    running.push(p);
    expect(await p.exited).toBe(1);
    const err = p.stderr().trim();
    expect(err.split('\n')).toHaveLength(1);
    expect(err).toContain('postgres://svc@127.0.0.1:1/sandbox is unreachable');
    expect(err).not.toContain('hunter2');
    // Nothing was written in the folder: no SQLite file, no .svc/dev.json.
    expect(fs.existsSync(path.join(dir, '.svc'))).toBe(false);
  });

  it('--database takes only a PostgreSQL URL: a usage error naming the flag, exit 2', async () => {
    const p = dev(['--database', 'state.sqlite'], tempDir());
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toContain('--database');
  });
});

describe('svc dev --json', () => {
  it('prints the ready event first, then one NDJSON line per request, and stops cleanly on SIGINT', async () => {
    const dir = tempDir();
    const p = dev(['--json'], dir);
    const ready = JSON.parse(await p.waitForLine(() => true));
    expect(ready).toEqual({
      type: 'ready',
      baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      address: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      configFile: null,
      // CONTRACT §12: which engine, and where (the default file of this folder).
      storage: 'sqlite',
      database: path.join(fs.realpathSync(dir), '.svc', 'emulator.sqlite'),
      test: {
        partnerKey: expect.stringMatching(/^pt_test_[0-9A-Za-z]{32}$/),
        merchantKey: expect.stringMatching(/^test_[0-9A-Za-z]{32}$/),
        merchantId: expect.any(String),
      },
      live: {
        partnerKey: expect.stringMatching(/^pt_live_[0-9A-Za-z]{32}$/),
        merchantKey: expect.stringMatching(/^live_[0-9A-Za-z]{32}$/),
        merchantId: expect.any(String),
      },
    });
    expect(p.lines[0]).toBe(JSON.stringify(ready));

    const res = await request(ready.baseUrl, 'POST', '/v1/invoices', { key: ready.test.merchantKey, body: { amount: '1.00' }, idempotencyKey: ikey() });
    expect(res.status).toBe(201);
    const line = JSON.parse(await p.waitForLine((l) => l.includes('"type":"request"')));
    expect(line).toMatchObject({ type: 'request', method: 'POST', path: '/v1/invoices', status: 201 });

    expect(await p.stop('SIGINT')).toBe(0);
    expect(JSON.parse(p.lines.at(-1)!)).toEqual({ type: 'stopped', signal: 'SIGINT' });
    // The default database lives in .svc/ of the current folder.
    expect(fs.existsSync(path.join(dir, '.svc', 'emulator.sqlite'))).toBe(true);
  });

  it('keeps data and keys across a restart on the same --db, and --reset empties it', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'data.sqlite');
    const first = dev(['--json', '--db', db], dir);
    const ready = JSON.parse(await first.waitForLine(() => true));
    const created = await request(ready.baseUrl, 'POST', '/v1/invoices', { key: ready.test.merchantKey, body: { amount: '2.00' }, idempotencyKey: ikey() });
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = dev(['--json', '--db', db], dir);
    const again = JSON.parse(await second.waitForLine(() => true));
    expect(again.test).toEqual(ready.test);
    const read = await request(again.baseUrl, 'GET', `/v1/invoices/${created.body.id}`, { key: again.test.merchantKey });
    expect(read.status).toBe(200);
    expect(read.body.amount).toBe('2.00');
    await second.stop();

    const third = dev(['--json', '--db', db, '--reset'], dir);
    const reset = JSON.parse(await third.waitForLine(() => true));
    expect(reset.test.partnerKey).toBe(ready.test.partnerKey);
    expect((await request(reset.baseUrl, 'GET', `/v1/invoices/${created.body.id}`, { key: reset.test.merchantKey })).status).toBe(404);
  });

  it('--memory leaves no file behind', async () => {
    const dir = tempDir();
    const p = dev(['--json', '--memory'], dir);
    await p.waitForLine(() => true);
    await p.stop();
    expect(fs.existsSync(path.join(dir, '.svc'))).toBe(false);
  });
});

describe('svc dev (human)', () => {
  it('prints the base URL and the keys, then "METHOD path status N ms" per request', async () => {
    const dir = tempDir();
    const p = dev(['--memory'], dir);
    const urlLine = await p.waitForLine((l) => l.includes('Base URL'));
    const baseUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(urlLine)![0];
    await p.waitForLine((l) => l.includes('Ctrl-C'));
    const out = p.lines.join('\n');
    expect(out).toMatch(/Test partner key\s+pt_test_[0-9A-Za-z]{32}/);
    expect(out).toMatch(/Test merchant key\s+test_[0-9A-Za-z]{32}/);
    expect(out).toMatch(/Live partner key\s+pt_live_/);
    expect(out).toContain(`${baseUrl}/checkout/<invoiceId>`);

    const key = /pt_test_[0-9A-Za-z]{32}/.exec(out)![0];
    await request(baseUrl, 'GET', '/v1/partner/webhook', { key });
    const line = await p.waitForLine((l) => l.includes('GET /v1/partner/webhook'));
    expect(line).toMatch(/^\d\d:\d\d:\d\d GET \/v1\/partner\/webhook 404 (<1|\d+) ms$/);
    expect(await p.stop('SIGINT')).toBe(0);
  });

  it('shows deliveries as they happen: --> event, <-- result, failures with the reason and the next attempt', async () => {
    const rx = await startReceiver();
    try {
      const dir = tempDir();
      const p = dev(['--memory'], dir);
      const urlLine = await p.waitForLine((l) => l.includes('Base URL'));
      const baseUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(urlLine)![0];
      await p.waitForLine((l) => l.includes('Ctrl-C'));
      const out = p.lines.join('\n');
      const partnerKey = /pt_test_[0-9A-Za-z]{32}/.exec(out)![0];
      const merchantId = /\(merchant ([0-9a-f-]{36})\)/.exec(out)![1]!;
      await request(baseUrl, 'PUT', '/v1/partner/webhook', { key: partnerKey, body: { url: `${rx.url}/hooks`, secret: 'whsec_dev_output_1' } });
      const inv = await request(baseUrl, 'POST', '/v1/partner/invoices', { key: partnerKey, body: { merchantId, amount: '1' }, idempotencyKey: ikey() });
      expect(await p.waitForLine((l) => l.includes('-->'))).toMatch(new RegExp(`--> invoice\\.created \\[${inv.body.id}-1\\]$`));
      expect(await p.waitForLine((l) => l.includes('<--'))).toMatch(
        new RegExp(`<-- \\[200\\] invoice\\.created \\[${inv.body.id}-1\\] POST ${rx.url}/hooks \\(\\d+ ms\\)$`),
      );

      rx.respond({ status: 500, body: 'boom' });
      await request(baseUrl, 'POST', `/v1/test_helpers/invoices/${inv.body.id}/payments`, { key: partnerKey, body: {} });
      const failed = await p.waitForLine((l) => l.includes('<-- [500]'));
      expect(failed).toMatch(/<-- \[500\] invoice\.paid \[\S+-2\] POST .* \(\d+ ms\) http_status: 500 .* · next attempt \d{4}-\d\d-\d\dT/);
    } finally {
      await rx.close();
    }
  });

  it('reports a config error with the file and the field, exit 1', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'svc.config.json'), JSON.stringify({ chains: { test: [84532, 5] } }));
    const p = dev([], dir);
    expect(await p.exited).toBe(1);
    expect(p.stderr()).toContain('svc.config.json:1: chains.test[1]: unknown test networkId 5');
  });

  it('reports every problem of a config file at once, each with its line and field (issue 24)', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'svc.config.json'),
      ['{', '  "port": "4747",', '  "invoiceLifetime": "5 fortnights",', '  "chains": { "test": [5] }', '}', ''].join('\n'),
    );
    const p = dev([], dir);
    expect(await p.exited).toBe(1);
    expect(p.stderr()).toContain('svc.config.json: 3 problems');
    expect(p.stderr()).toContain('svc.config.json:2: port: must be a port number from 0 to 65535');
    expect(p.stderr()).toContain('svc.config.json:3: invoiceLifetime: "5 fortnights" is not a duration');
    expect(p.stderr()).toContain('svc.config.json:4: chains.test[0]: unknown test networkId 5');

    const json = dev(['--json'], dir);
    expect(await json.exited).toBe(1);
    const problems = JSON.parse(json.lines.join('\n')).error.problems;
    expect(problems.map((x: { line: number; field: string }) => `${x.line} ${x.field}`)).toEqual(['2 port', '3 invoiceLifetime', '4 chains.test[0]']);
  });

  it.each([
    ['truncated JSON', 'svc.config.json', '{\n  "port": 4747,\n  "chains": {', 'svc.config.json:3:14: not valid JSON: '],
    ['broken YAML', 'svc.config.yaml', 'port: 4747\nchains:\n  test: [5, 84532\n', 'svc.config.yaml:4:1: not valid YAML: '],
  ])('%s: one line with the file, line and column, the file named once', async (_name, file, text, start) => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, file), text);
    const p = dev([], dir);
    expect(await p.exited).toBe(1);
    const lines = p.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(start);
    expect(lines[0]!.split(file)).toHaveLength(2);
  });
});
