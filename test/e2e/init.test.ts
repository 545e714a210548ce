import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/validate.js';
import { ROOT, runCli, spawnCli, type LiveCli } from '../helpers/cli.js';
import { request } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';
import { HAS_TMUX, svcInTerminal, type Terminal } from '../helpers/tty.js';

/** Waits for a spawned CLI (its stdin left open) to exit: its code and stderr. */
async function untilExit(cli: LiveCli): Promise<{ code: number | null; stderr: string }> {
  const code = await cli.exited;
  return { code, stderr: cli.stderr() };
}

/** `svc init` (spawned from dist/, which is where it must find templates/), and prompting on a real terminal. */
const template = (name: string) => fs.readFileSync(path.join(ROOT, 'templates', name), 'utf8');
const read = (dir: string, name: string) => fs.readFileSync(path.join(dir, name), 'utf8');

describe('svc init', () => {
  it('--yes writes svc.config.json with the defaults; --json lists the files written', async () => {
    const dir = tempDir();
    const run = await runCli(['init', '--yes', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ files: ['svc.config.json'] });
    expect(fs.readdirSync(dir)).toEqual(['svc.config.json']);
    const config = JSON.parse(read(dir, 'svc.config.json'));
    expect(config).toMatchObject({ port: 4747, database: '.svc/emulator.sqlite', invoiceLifetime: '60m' });
    // It is a valid config, with nothing unknown in it.
    expect(validateConfig(config, 'svc.config.json').warnings).toEqual([]);
  });

  it('--yes --fixtures --receiver also writes the two examples, copied from templates/', async () => {
    const dir = tempDir();
    const run = await runCli(['init', '--yes', '--fixtures', '--receiver'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Wrote svc.config.json, svc.fixtures.yaml, webhook-receiver.mjs');
    expect(run.stdout).toContain('svc dev --fixtures svc.fixtures.yaml');
    expect(run.stdout).toMatch(/WEBHOOK_SECRET=whsec_[0-9a-f]{24} node webhook-receiver\.mjs/);
    // The "Next:" lines fit 80 columns (issue 38: the webhook one was 116 wide, the rest padded to it).
    const lines = run.stdout.split('\n');
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    // They are shell lines as they are: the webhook command's secret is the receiver's.
    const next = lines.slice(lines.indexOf('Next:') + 1);
    const secret = /WEBHOOK_SECRET=(whsec_[0-9a-f]{24})/.exec(run.stdout)![1];
    expect(next).toContain('  svc webhook set --url http://localhost:3000/hooks \\');
    expect(next).toContain(`    --secret ${secret}`);
    expect(next.filter((l) => l.startsWith('  ') && !l.startsWith('  #') && !l.startsWith('    ')).map((l) => l.trim().split(' ')[0])).toEqual([
      'svc',
      'svc',
      `WEBHOOK_SECRET=${secret}`,
      'svc',
      'svc',
    ]);
    expect(read(dir, 'svc.fixtures.yaml')).toBe(template('svc.fixtures.yaml'));
    expect(read(dir, 'webhook-receiver.mjs')).toBe(template('webhook-receiver.mjs'));
    expect(fs.statSync(path.join(dir, 'webhook-receiver.mjs')).mode & 0o111).not.toBe(0);
  });

  it('refuses to overwrite: nothing is written if any file exists, exit 1; --force overwrites', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'svc.fixtures.yaml'), 'mine\n');
    const refused = await runCli(['init', '--yes', '--fixtures'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('svc.fixtures.yaml already exists; nothing was written');
    expect(refused.stderr).toContain('--force');
    expect(fs.readdirSync(dir)).toEqual(['svc.fixtures.yaml']);
    expect(read(dir, 'svc.fixtures.yaml')).toBe('mine\n');

    const json = await runCli(['init', '--yes', '--fixtures', '--json'], { cwd: dir });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error.code).toBe('file_exists');

    const forced = await runCli(['init', '--yes', '--fixtures', '--force'], { cwd: dir });
    expect(forced.code).toBe(0);
    expect(read(dir, 'svc.fixtures.yaml')).toBe(template('svc.fixtures.yaml'));
  });

  it('without a terminal and without --yes takes the defaults and says so, never waiting for input', async () => {
    const dir = tempDir();
    // stdin stays open: a command that waited for input would never exit, and the test would time
    // out (no wall-clock bound, issue 23).
    const run = await untilExit(spawnCli(['init'], { cwd: dir }));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Not a terminal: took the defaults without asking (pass --yes to say so).');
    expect(fs.readdirSync(dir)).toEqual(['svc.config.json']);
  });

  it('notes a config file that cosmiconfig would read before svc.config.json', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, '.svcrc.json'), '{}');
    const run = await runCli(['init', '--yes'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('note: .svcrc.json is read before svc.config.json');
  });
});

describe('prompts on a real terminal (tmux)', () => {
  // tmux is installed by `npm test` (scripts/ensure-test-tools.mjs) and .ci/run: never skipped.
  it('has tmux', () => expect(HAS_TMUX, 'tmux is required: apt-get install -y tmux').toBe(true));

  let term: Terminal | undefined;
  afterEach(() => {
    term?.close();
    term = undefined;
  });

  it('svc init asks for the port, database, lifetime and examples, and writes what was answered', async () => {
    const dir = tempDir();
    term = svcInTerminal(['init'], { cwd: dir });
    await term.waitFor(/Port for svc dev: \(4747\)/);
    term.type('5858');
    term.press('Enter');
    await term.waitFor(/SQLite database file: \(\.svc\/emulator\.sqlite\)/);
    term.type('data/dev.sqlite');
    term.press('Enter');
    await term.waitFor(/Invoice lifetime: \(60m\)/);
    term.type('soon'); // not a duration: asked again
    term.press('Enter');
    await term.waitFor(/a duration of at least 1s/);
    term.press('C-u');
    term.type('15m');
    term.press('Enter');
    await term.waitFor(/Write an example fixtures file \(svc\.fixtures\.yaml\)\? \(y\/N\)/);
    term.type('y');
    term.press('Enter');
    await term.waitFor(/Write an example webhook receiver \(webhook-receiver\.mjs\)\? \(y\/N\)/);
    term.press('Enter'); // the default: no
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 0]');
    expect(screen).toContain('Wrote svc.config.json, svc.fixtures.yaml');
    expect(fs.readdirSync(dir).sort()).toEqual(['svc.config.json', 'svc.fixtures.yaml']);
    expect(JSON.parse(read(dir, 'svc.config.json'))).toMatchObject({ port: 5858, database: 'data/dev.sqlite', invoiceLifetime: '15m' });
  });

  describe('svc merchants create', () => {
    let dev: LiveCli;
    let dir: string;
    let ready: { baseUrl: string; test: { partnerKey: string } };
    beforeAll(async () => {
      dir = tempDir();
      dev = spawnCli(['dev', '--port', '0', '--json', '--memory'], { cwd: dir });
      ready = JSON.parse(await dev.waitForLine((l) => l.includes('"type":"ready"')));
    });
    afterAll(() => dev.stop());

    it('asks on a terminal for the values its flags did not give', async () => {
      term = svcInTerminal(['merchants', 'create', '--name', 'Terminal Coffee'], { cwd: dir });
      await term.waitFor(/External tenant id:/);
      term.type('tenant-tty');
      term.press('Enter');
      await term.waitFor(/Contact e-mail:/);
      term.type('not-an-email');
      term.press('Enter');
      await term.waitFor(/an e-mail address/);
      term.press('C-u');
      term.type('owner@tty.example');
      term.press('Enter');
      const screen = await term.waitFor(/\[exit \d+\]/);
      expect(screen).toContain('[exit 0]');
      expect(screen).not.toContain('Merchant name:'); // given as a flag, not asked
      const id = /^id\s+([0-9a-f-]{36})$/m.exec(screen)?.[1];
      expect(id, screen).toBeDefined();
      const merchant = await request(ready.baseUrl, 'GET', `/v1/partner/merchants/${id}`, { key: ready.test.partnerKey });
      expect(merchant.body).toMatchObject({ externalTenantId: 'tenant-tty', name: 'Terminal Coffee', email: 'owner@tty.example' });
    });

    it('without a terminal fails fast with exit 2, naming the missing flag (it never waits for input)', async () => {
      // stdin stays open: waiting for input would never end (no wall-clock bound, issue 23).
      const run = await untilExit(spawnCli(['merchants', 'create'], { cwd: dir }));
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--external-tenant-id');
      const json = await runCli(['merchants', 'create', '--name', 'x', '--external-tenant-id', 'y', '--json'], { cwd: dir, timeoutMs: 10_000 });
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'usage_error', param: '--email' });
    });
  });
});
