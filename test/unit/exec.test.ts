import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { exitCodeOf, signalExitCode } from '../../src/cli/child.js';
import { commandEnv } from '../../src/cli/commands/exec.js';
import { devSpec, execSpec } from '../../src/cli/commands/top.js';
import { buildProgram } from '../../src/cli/program.js';
import type { OptionSpec } from '../../src/cli/spec.js';

/** `svc exec`'s pure parts; the command itself runs in test/e2e/exec.test.ts. */
describe('svc exec takes the options of svc dev', () => {
  it('the same flags (exec adds --log): an option added to dev must be handled by exec too (exec.ts, applyFlags)', () => {
    const dev: readonly OptionSpec[] = devSpec.options ?? [];
    const exec: readonly OptionSpec[] = execSpec.options ?? [];
    expect(exec.map((o) => o.flags).filter((f) => f !== '--log <file>')).toEqual(dev.map((o) => o.flags));
    // Parsed alike: the same value types and repeatability.
    for (const o of dev) {
      const twin = exec.find((e) => e.flags === o.flags)!;
      expect({ parse: twin.parse, repeatable: twin.repeatable, choices: twin.choices }, o.flags).toEqual({
        parse: o.parse,
        repeatable: o.repeatable,
        choices: o.choices,
      });
    }
  });
});

describe("the command's environment", () => {
  const emulator = {
    url: 'http://127.0.0.1:5123',
    keys: {
      test: { partnerKey: 'pt_test_A', merchantKey: 'test_A', merchantId: 'm-test' },
      live: { partnerKey: 'pt_live_A', merchantKey: 'live_A', merchantId: 'm-live' },
    },
  };

  it('the SVC_* variables over the inherited ones; the rest kept', () => {
    const env = commandEnv({ PATH: '/bin', SVC_BASE_URL: 'http://elsewhere', SVC_PARTNER_KEY: 'pt_test_old' }, emulator, undefined);
    expect(env).toEqual({
      PATH: '/bin',
      SVC_BASE_URL: 'http://127.0.0.1:5123',
      SVC_PARTNER_KEY: 'pt_test_A',
      SVC_MERCHANT_KEY: 'test_A',
      SVC_MERCHANT_ID: 'm-test',
      SVC_LIVE_PARTNER_KEY: 'pt_live_A',
      SVC_LIVE_MERCHANT_KEY: 'live_A',
      SVC_LIVE_MERCHANT_ID: 'm-live',
    });
  });

  it('SVC_FIXTURES_OUTPUT only with --fixtures: an inherited one is dropped, never passed on', () => {
    expect(commandEnv({ SVC_FIXTURES_OUTPUT: '/old.json' }, emulator, undefined)).not.toHaveProperty('SVC_FIXTURES_OUTPUT');
    expect(commandEnv({ SVC_FIXTURES_OUTPUT: '/old.json' }, emulator, '/tmp/x/fixtures.json').SVC_FIXTURES_OUTPUT).toBe('/tmp/x/fixtures.json');
  });
});

describe('exit codes, as a shell reports them', () => {
  it('the code, or 128 + the signal number', () => {
    expect(exitCodeOf(0, null)).toBe(0);
    expect(exitCodeOf(3, null)).toBe(3);
    expect(exitCodeOf(null, 'SIGINT')).toBe(130);
    expect(exitCodeOf(null, 'SIGTERM')).toBe(143);
    expect(exitCodeOf(null, 'SIGKILL')).toBe(137);
    expect(signalExitCode('SIGHUP')).toBe(129);
    expect(signalExitCode(new Error('aborted'))).toBe(130);
  });
});

describe('the command must follow --', () => {
  const sink = () =>
    new Writable({
      write(_c, _e, done) {
        done();
      },
    });

  async function run(argv: string[]): Promise<{ code: number | null; ran: boolean }> {
    let code: number | null = null;
    let ran = false;
    const program = buildProgram({
      setExitCode: (c) => (code = c),
      io: { stdout: sink(), stderr: sink(), stdinIsTTY: false, env: {} },
      invoke: async () => {
        ran = true;
        return 0;
      },
    });
    await program.parseAsync(argv, { from: 'user' });
    return { code, ran };
  }

  it.each([
    [['exec', '--', 'node', 'server.js'], { code: 0, ran: true }],
    [['--verbose', 'exec', '--memory', '--', 'node', '--', 'x'], { code: 0, ran: true }],
    // Without --, `--port 3000` would be svc's own option and `node server.js` would run.
    [['exec', 'node', 'server.js'], { code: 2, ran: false }],
    [['exec', 'node', '--', 'server.js'], { code: 2, ran: false }],
  ])('svc %j', async (argv, expected) => {
    expect(await run(argv)).toEqual(expected);
  });
});
