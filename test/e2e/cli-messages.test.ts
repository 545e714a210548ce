import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runInProcess, spawnCli, type RunResult } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Messages a newcomer meets in the first hour (issue 11): each says what to do, names the flag or
 * the key it is about, and is a usage error (exit 2) before any request when the command line is
 * the problem.
 */
const dir = tempDir('svc-messages-');
type Env = Record<string, string>;
const NO_TARGET: Env = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };

const svc = (args: string[], env: Env): Promise<RunResult> => runInProcess(args, { cwd: dir, env: { ...NO_TARGET, ...env } });
const spawned = (args: string[], env: Env): Promise<RunResult> => runCli(args, { cwd: dir, env: { ...NO_TARGET, ...env } });
/** A failure with --json: stdout is exactly the contract's error document. */
function jsonError(r: RunResult, code: number): { code: string; message: string; param?: string } {
  expect(r.code, r.stderr).toBe(code);
  const doc = JSON.parse(r.stdout) as { error: { code: string; message: string; param?: string } };
  expect(Object.keys(doc)).toEqual(['error']);
  return doc.error;
}
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let emu: TestEmulator;
let env: Env;
beforeAll(async () => {
  emu = await startTestEmulator();
  env = { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey, SVC_MERCHANT_KEY: emu.keys.test.merchantKey };
});
afterAll(() => emu?.stop());

describe('messages that say what to do (issue 11)', () => {
  it('invoices create with only a partner key: a usage error naming --merchant, before any request', async () => {
    // A closed port: a request would be exit 3, so exit 2 shows nothing was sent.
    const partnerOnly = { SVC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, SVC_PARTNER_KEY: emu.keys.test.partnerKey };
    const error = jsonError(await svc(['invoices', 'create', '--amount', '5', '--json'], partnerOnly), 2);
    expect(error).toMatchObject({ code: 'usage_error', param: '--merchant' });
    expect(error.message).toContain('with a partner key needs --merchant <id>');
    expect(error.message).toContain('or use a merchant key');
  });

  it('invoices create with no key at all names the merchant key it needs', async () => {
    const r = await svc(['invoices', 'create', '--amount', '5'], { SVC_BASE_URL: emu.url });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`\`svc invoices create\` needs a merchant key, and there is none for ${emu.url}`);
    expect(r.stderr).not.toContain('partner key');
  });

  it('a missing --amount is one plain phrase, without doubled parentheses', async () => {
    const r = await svc(['invoices', 'create'], env);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('error missing required option --amount (a decimal amount such as 25.00)');
  });

  it('trigger without an event lists the events; a typo gets the closest one (spawned)', async () => {
    const none = await spawned(['trigger'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      `missing required argument <event>: one of ${['invoice.created', 'invoice.payment_detected', 'invoice.partially_paid', 'invoice.paid'].join(', ')}`,
    );
    expect(jsonError(await spawned(['trigger', '--json'], env), 2)).toMatchObject({ code: 'usage_error', param: '<event>' });
    const typo = await spawned(['trigger', 'invoice.payed'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean "invoice.paid"?');
    const status = await svc(['invoices', 'list', '--status', 'payed'], env);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('Did you mean "PAID"?');
  });
});

describe('one error style (issue 38)', () => {
  // commander's own messages (`error: command-argument value 'invoice.payed' is invalid …`) beside
  // svc's (`error missing required argument …`): now all svc's, with the closest choice.
  it.each([
    [['trigger', 'invoice.payed'], /^error <event> must be one of invoice\.created, .*, not "invoice\.payed"\. Did you mean "invoice\.paid"\?$/],
    [['trigger'], /^error missing required argument <event>: one of invoice\.created, /],
    [['invoices', 'get'], /^error missing required argument <invoiceId>$/],
    [['invoices', 'list', '--statuss', 'PAID'], /^error unknown option '--statuss'\. Did you mean "--status"\?$/],
    [['invoices', 'list', '--status', 'payed'], /^error --status must be one of CREATED, .*, not "payed"\. Did you mean "PAID"\?$/],
    [['invoicez', 'list'], /^error unknown command 'invoicez'\. Did you mean "invoices"\?$/],
    [['invoices', 'list', '--limit', 'abc'], /^error --limit must be a positive whole number, not "abc"\.$/],
  ])('svc %j: "error <message>", then the help hint (spawned)', async (args, first) => {
    const r = await spawned(args, env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(first);
    expect(lines.slice(1)).toEqual(['(add --help for usage)']);
  });
});

describe('a port held by another svc dev (issue 38)', () => {
  it('says it is an svc emulator and which (pid, URL, folder), and suggests --port 0; another program keeps the plain line', async () => {
    const first = tempDir('svc-port-first-');
    const holder = spawnCli(['dev', '--port', '0', '--json', '--memory'], { cwd: first, env: NO_TARGET });
    try {
      const ready = JSON.parse(await holder.waitForLine((l) => l.includes('"type":"ready"'))) as { baseUrl: string };
      const port = new URL(ready.baseUrl).port;
      const second = await spawned(['dev', '--port', port, '--memory'], {});
      expect(second.code).toBe(1);
      expect(second.stderr.split('\n')[0]).toBe(
        `error port ${port} is already in use on 127.0.0.1 by another svc emulator (pid ${holder.child.pid}, ${ready.baseUrl}, folder ${first}); stop it, or start with --port 0 to pick a free port`,
      );
    } finally {
      await holder.stop();
    }
    // Not an emulator: another web server, whose health path is not svc's.
    const other = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = other.address() as { port: number };
      const r = await spawned(['dev', '--port', String(port), '--memory'], {});
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n')[0]).toBe(`error port ${port} is already in use on 127.0.0.1; stop what uses it, or start with --port 0 to pick a free port`);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
