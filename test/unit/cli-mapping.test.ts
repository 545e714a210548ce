import { Writable } from 'node:stream';
import { CommanderError } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALL_COMMANDS } from '../../src/cli/commands/index.js';
import type { Context } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { buildProgram } from '../../src/cli/program.js';
import { GLOBAL_OPTIONS, type CommandSpec, type HandlerInput } from '../../src/cli/spec.js';
import { inputProblem, optionsProblem } from '../../src/cli/spec-input.js';
import { UsageError } from '../../src/errors.js';

/**
 * The argv → handler mapping, for every command: which spec runs, with which positional arguments
 * and options (camel-cased, parsed: ints, repeatable arrays), and the global options. The handler
 * itself is never loaded: `invoke` records what would run (test/integration/cli-handlers.test.ts
 * loads every one).
 */
interface Invocation {
  spec: CommandSpec;
  input: HandlerInput;
  ctx: Context;
}

/** Commander's own messages (help, errors) go nowhere: the tests read the thrown error. */
const sink = () =>
  new Writable({
    write(_chunk, _enc, done) {
      done();
    },
  });

async function parse(argv: string[]): Promise<Invocation> {
  let seen: Invocation | undefined;
  const program = buildProgram({
    setExitCode: () => {},
    io: { stdout: sink(), stderr: sink(), stdinIsTTY: false, env: {} },
    invoke: async (spec, input, ctx) => {
      seen = { spec, input, ctx };
      return 0;
    },
  });
  await program.parseAsync(argv, { from: 'user' });
  if (!seen) throw new Error(`nothing ran for ${argv.join(' ')}`);
  return seen;
}

/**
 * Parses argv that must fail as a usage error; returns what it failed with: commander's error (an
 * unknown command or option, too many arguments), the UsageError a value's parser threw, or the
 * UsageError the action rendered (a missing argument), with what reached stderr.
 */
async function parseError(argv: string[]): Promise<{ code: string; message: string; exitCode: number }> {
  let stderr = '';
  let exitCode = 0;
  const program = buildProgram({
    setExitCode: (c) => (exitCode = c),
    io: {
      stdout: sink(),
      stderr: new Writable({
        write(chunk, _enc, done) {
          stderr += String(chunk);
          done();
        },
      }),
      stdinIsTTY: false,
      env: {},
    },
    invoke: async () => {
      throw new Error(`should not run: ${argv.join(' ')}`);
    },
  });
  const error = await program.parseAsync(argv, { from: 'user' }).then(
    () => null,
    (e: unknown) => e,
  );
  if (error instanceof CommanderError) return { code: error.code, message: stderr, exitCode: error.exitCode };
  if (error instanceof UsageError) return { code: error.code, message: error.message, exitCode: 2 };
  expect(error).toBeNull();
  return { code: 'usage_error', message: stderr, exitCode };
}

const PARTNER_KEY = `pt_test_${'a'.repeat(32)}`;

/** [argv, spec name, args, options]: every command at least once, every option of each. */
const ROWS: [string, string, Record<string, string | readonly string[] | undefined>, Record<string, unknown>][] = [
  ['dev', 'dev', {}, {}],
  [
    'dev --port 0 --host 0.0.0.0 --db data.sqlite --memory --reset --fixtures f.yaml --expose-control-plane',
    'dev',
    {},
    { port: 0, host: '0.0.0.0', db: 'data.sqlite', memory: true, reset: true, fixtures: 'f.yaml', exposeControlPlane: true },
  ],
  ['dev -p 4747', 'dev', {}, { port: 4747 }],
  ['init', 'init', {}, {}],
  ['init -y --fixtures --receiver --force', 'init', {}, { yes: true, fixtures: true, receiver: true, force: true }],
  ['status', 'status', {}, {}],
  ['reset', 'reset', {}, {}],
  ['webhook listeners', 'webhook listeners', {}, {}],
  ['webhook listeners --remove test', 'webhook listeners', {}, { remove: 'test' }],
  ['webhook listeners --all', 'webhook listeners', {}, { all: true }],
  ['reset -y', 'reset', {}, { yes: true }],
  ['openapi', 'openapi', {}, {}],
  ['openapi -o api.json', 'openapi', {}, { output: 'api.json' }],
  ['openapi --output api.yaml', 'openapi', {}, { output: 'api.yaml' }],
  ['trigger invoice.paid', 'trigger', { event: 'invoice.paid' }, {}],
  ['trigger invoice.paid_late --merchant m-1 --amount 5.00', 'trigger', { event: 'invoice.paid_late' }, { merchant: 'm-1', amount: '5.00' }],
  [
    'trigger invoice.paid --reference-id order-7 --network-id 84532 --token USDC',
    'trigger',
    { event: 'invoice.paid' },
    { referenceId: 'order-7', networkId: 84532, token: 'USDC' },
  ],
  ['exec -- npm test', 'exec', { command: ['npm', 'test'] }, {}],
  [
    // Everything after -- is the command's, svc's own flags included.
    'exec -p 0 --host 0.0.0.0 --db x.sqlite --memory --reset --fixtures f.yaml --expose-control-plane --allowed-host a.test --log l.ndjson -- node t.js --port 1 --json -- x',
    'exec',
    { command: ['node', 't.js', '--port', '1', '--json', '--', 'x'] },
    {
      port: 0,
      host: '0.0.0.0',
      db: 'x.sqlite',
      memory: true,
      reset: true,
      fixtures: 'f.yaml',
      exposeControlPlane: true,
      allowedHost: ['a.test'],
      log: 'l.ndjson',
    },
  ],
  ['completion bash', 'completion', { shell: 'bash' }, {}],
  ['completion fish', 'completion', { shell: 'fish' }, {}],
  [
    'merchants create --external-tenant-id acme --name Acme --email a@b.example --idempotency-key k1',
    'merchants create',
    {},
    { externalTenantId: 'acme', name: 'Acme', email: 'a@b.example', idempotencyKey: 'k1' },
  ],
  ['merchants create', 'merchants create', {}, {}],
  ['merchants get m-1', 'merchants get', { merchantId: 'm-1' }, {}],
  ['merchants list', 'merchants list', {}, {}],
  ['merchants list --limit 5 --starting-after m-9', 'merchants list', {}, { limit: 5, startingAfter: 'm-9' }],
  ['merchants keys m-1', 'merchants keys', { merchantId: 'm-1' }, {}],
  [
    'invoices create --amount 25.00 --merchant m-1 --network-id 84532 --token USDC --reference-id order-7 --idempotency-key k2',
    'invoices create',
    {},
    { amount: '25.00', merchant: 'm-1', networkId: 84532, token: 'USDC', referenceId: 'order-7', idempotencyKey: 'k2' },
  ],
  ['invoices get i-1', 'invoices get', { invoiceId: 'i-1' }, {}],
  ['invoices list', 'invoices list', {}, {}],
  [
    'invoices list --merchant m-1 --status PARTIALLY_PAID --limit 100 --starting-after i-9',
    'invoices list',
    {},
    { merchant: 'm-1', status: 'PARTIALLY_PAID', limit: 100, startingAfter: 'i-9' },
  ],
  ['invoices pay i-1', 'invoices pay', { invoiceId: 'i-1' }, {}],
  [
    'invoices pay i-1 --amount 5 --token USDC --network-id 84532 --unconfirmed --tx-hash 0xabc',
    'invoices pay',
    { invoiceId: 'i-1' },
    { amount: '5', token: 'USDC', networkId: 84532, unconfirmed: true, txHash: '0xabc' },
  ],
  ['invoices confirm i-1 p-1', 'invoices confirm', { invoiceId: 'i-1', paymentId: 'p-1' }, {}],
  ['invoices expire i-1', 'invoices expire', { invoiceId: 'i-1' }, {}],
  ['webhook get', 'webhook get', {}, {}],
  [
    'webhook set --url http://localhost:3000/hooks --secret s3cr3t-s3cr3t-s3cr3t --enable --header X-A:1 --header X-B:2',
    'webhook set',
    {},
    { url: 'http://localhost:3000/hooks', secret: 's3cr3t-s3cr3t-s3cr3t', enable: true, header: ['X-A:1', 'X-B:2'] },
  ],
  ['webhook set --disable', 'webhook set', {}, { disable: true }],
  [
    'webhook verify --secret s --signature t=1,v1=ab --payload-file body.json --tolerance 60',
    'webhook verify',
    {},
    { secret: 's', signature: 't=1,v1=ab', payloadFile: 'body.json', tolerance: 60 },
  ],
  [
    'webhook listen --forward-to localhost:3000/hooks --events invoice.paid,invoice.expired --header X-A:1 --header X-B:2 --timeout 10 --tunnel none',
    'webhook listen',
    {},
    { forwardTo: 'localhost:3000/hooks', events: 'invoice.paid,invoice.expired', header: ['X-A:1', 'X-B:2'], timeout: 10, tunnel: 'none' },
  ],
  ['webhook listen --print-secret', 'webhook listen', {}, { printSecret: true, tunnel: 'auto' }],
  [
    'webhook deliveries list --status failed --event-type invoice.paid --invoice i-1 --limit 5 --starting-after d-0',
    'webhook deliveries list',
    {},
    { status: 'failed', eventType: 'invoice.paid', invoice: 'i-1', limit: 5, startingAfter: 'd-0' },
  ],
  ['webhook deliveries get d-1', 'webhook deliveries get', { id: 'd-1' }, {}],
  ['webhook deliveries resend d-1', 'webhook deliveries resend', { id: 'd-1' }, {}],
  ['webhook deliveries tail --status retrying --interval 5', 'webhook deliveries tail', {}, { status: 'retrying', interval: 5 }],
  ['time show', 'time show', {}, {}],
  ['time advance 90s', 'time advance', { duration: '90s' }, {}],
  ['time reset', 'time reset', {}, {}],
  ['snapshot save seeded', 'snapshot save', { name: 'seeded' }, {}],
  ['snapshot restore seeded', 'snapshot restore', { name: 'seeded' }, {}],
  ['snapshot list', 'snapshot list', {}, {}],
  [
    'logs tail --method POST --path /v1/invoices --status 400 --invoice i-1',
    'logs tail',
    {},
    { method: 'POST', path: '/v1/invoices', status: 400, invoice: 'i-1' },
  ],
  ['logs get req_3f9c1a2b4d5e0000000001', 'logs get', { requestId: 'req_3f9c1a2b4d5e0000000001' }, {}],
  [
    'faults add --path /v1/invoices --method POST --status 503 --code busy --retry-after 2 --when after_commit --times 1',
    'faults add',
    {},
    { path: '/v1/invoices', method: 'POST', status: 503, code: 'busy', retryAfter: 2, when: 'after_commit', times: 1 },
  ],
  ['faults list', 'faults list', {}, {}],
  ['open', 'open', {}, {}],
  [
    'webhook chaos set --duplicate 0.3 --reorder --delay 100-500 --bad-signature 0.1 --stale-timestamp 0.2 --seed 4',
    'webhook chaos set',
    {},
    { duplicate: '0.3', reorder: true, delay: '100-500', badSignature: '0.1', staleTimestamp: '0.2', seed: 4 },
  ],
  ['webhook chaos show', 'webhook chaos show', {}, {}],
  ['webhook chaos clear', 'webhook chaos clear', {}, {}],
  ['faults clear f-1', 'faults clear', { id: 'f-1' }, {}],
  ['snapshot delete seeded', 'snapshot delete', { name: 'seeded' }, {}],
  ['snapshot export seeded bug.sqlite', 'snapshot export', { name: 'seeded', file: 'bug.sqlite' }, {}],
  ['keys list', 'keys list', {}, {}],
  ['fixtures apply fixtures.yaml', 'fixtures apply', { file: 'fixtures.yaml' }, {}],
  ['fixtures from-recording traffic.ndjson', 'fixtures from-recording', { file: 'traffic.ndjson' }, {}],
  [
    'verify --partner-key pt_test_k --merchant-key test_k --only auth,webhook --tunnel',
    'verify',
    {},
    { partnerKey: 'pt_test_k', merchantKey: 'test_k', only: 'auth,webhook', tunnel: true },
  ],
  ['verify', 'verify', {}, {}],
  [
    'proxy --upstream https://sandbox.example.com --port 0 --record traffic.ndjson',
    'proxy',
    {},
    { upstream: 'https://sandbox.example.com', port: 0, record: 'traffic.ndjson' },
  ],
  [
    'webhook listen --forward-to 3000 --secret whsec_0123456789abcdef',
    'webhook listen',
    {},
    { forwardTo: '3000', secret: 'whsec_0123456789abcdef', tunnel: 'auto' },
  ],
  ['chain list', 'chain list', {}, {}],
  ['chain mine 3 --network 84532', 'chain mine', { blocks: '3' }, { network: 84532 }],
  [
    'chain pay inv-1 --network 80002 --token USDC --amount 4.5 --account 2 --no-confirm',
    'chain pay',
    { invoiceId: 'inv-1' },
    { network: 80002, token: 'USDC', amount: '4.5', account: 2, confirm: false },
  ],
];

describe('argv → handler', () => {
  it.each(ROWS)('svc %s', async (argv, name, args, options) => {
    const { spec, input, ctx } = await parse(argv.split(' '));
    expect(spec.name).toBe(name);
    expect(input.args).toEqual(Object.fromEntries((spec.args ?? []).map((a) => [a.name, args[a.name]])));
    expect(input.options).toEqual(options);
    // What commander parsed is what the spec's types say the handler gets (withHandler checks it too).
    expect(inputProblem(spec, input)).toBeNull();
    // No global option given: the defaults.
    expect({ json: ctx.json, quiet: ctx.quiet, verbose: ctx.verbose, color: ctx.color, interactive: ctx.interactive }).toEqual({
      json: false,
      quiet: false,
      verbose: false,
      color: false,
      interactive: false,
    });
    expect(ctx.globals.baseUrl).toBeUndefined();
    expect(ctx.globals.apiKey).toBeUndefined();
  });

  it('covers every command in ALL_COMMANDS', () => {
    expect(new Set(ROWS.map((r) => r[1]))).toEqual(new Set(ALL_COMMANDS.map((c) => c.name)));
  });
});

describe('global options', () => {
  const globals = [
    '--json',
    '--base-url',
    'http://127.0.0.1:1',
    '--api-key',
    PARTNER_KEY,
    '--quiet',
    '--no-color',
    '--verbose',
    '--profile',
    'ci',
    '--config',
    'svc.config.json',
  ];

  it.each([
    ['before the command', [...globals, 'invoices', 'get', 'i-1']],
    ['after the command', ['invoices', 'get', 'i-1', ...globals]],
  ])('%s', async (_where, argv) => {
    const { spec, input, ctx } = await parse(argv);
    expect(spec.name).toBe('invoices get');
    expect(input.args).toEqual({ invoiceId: 'i-1' });
    expect(input.options).toEqual({});
    expect(ctx.globals).toMatchObject({
      json: true,
      baseUrl: 'http://127.0.0.1:1',
      apiKey: PARTNER_KEY,
      quiet: true,
      color: false,
      verbose: true,
      profile: 'ci',
      config: 'svc.config.json',
    });
    expect({ json: ctx.json, quiet: ctx.quiet, verbose: ctx.verbose, color: ctx.color }).toEqual({ json: true, quiet: true, verbose: true, color: false });
    expect(optionsProblem(GLOBAL_OPTIONS, ctx.globals)).toBeNull();
  });

  it('short forms -q and -v', async () => {
    const { ctx } = await parse(['-q', 'status', '-v']);
    expect([ctx.quiet, ctx.verbose]).toEqual([true, true]);
  });
});

describe('usage errors', () => {
  // One style (issue 38): svc's `error <message>`, commander's own errors rewritten into it.
  it.each([
    ['unknown option', 'invoices get i-1 --nope', 'commander.unknownOption', /^error unknown option '--nope'\n/],
    ['unknown option, a typo', 'invoices list --statuss PAID', 'commander.unknownOption', /^error unknown option '--statuss'\. Did you mean "--status"\?\n/],
    ['missing argument', 'invoices get', 'usage_error', /^error missing required argument <invoiceId>\n/],
    ['missing option value', 'invoices list --limit', 'commander.optionMissingArgument', /^error option '--limit <n>' argument missing/],
    ['bad int', 'invoices list --limit abc', 'usage_error', /^--limit must be a positive whole number, not "abc"/],
    ['zero for a positive int', 'merchants list --limit 0', 'usage_error', /^--limit must be a positive whole number/],
    ['bad int for a network id', 'invoices pay i-1 --network-id base', 'usage_error', /^--network-id must be a whole number/],
    ['bad option choice', 'invoices list --status NOPE', 'usage_error', /^--status must be one of CREATED, CONFIRMING/],
    [
      'bad argument choice',
      'trigger invoice.payed',
      'usage_error',
      /^<event> must be one of invoice\.created, .*, not "invoice\.payed"\. Did you mean "invoice\.paid"\?$/,
    ],
    ['bad shell', 'completion powershell', 'usage_error', /^<shell> must be one of bash, zsh, fish, not "powershell"\.$/],
    ['unknown command', 'merchants frobnicate', 'commander.unknownCommand', /^error unknown command 'frobnicate'/],
    ['unknown command, a typo', 'invoicez', 'commander.unknownCommand', /^error unknown command 'invoicez'\. Did you mean "invoices"\?\n/],
    ['too many arguments', 'invoices expire i-1 i-2', 'commander.excessArguments', /^error too many arguments/],
    ['no command to exec', 'exec', 'usage_error', /^error missing required argument <command>\n/],
    ['nothing after --', 'exec --memory --', 'usage_error', /^error missing required argument <command>\n/],
  ])('%s: svc %s', async (_what, argv, code, message) => {
    const error = await parseError(argv.split(' '));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.exitCode).not.toBe(0);
  });
});

describe('main(): commander errors are exit code 2', () => {
  const saved = process.exitCode;
  afterEach(() => {
    process.exitCode = saved;
    vi.restoreAllMocks();
  });

  function capture() {
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
      out.push(String(s));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
      err.push(String(s));
      return true;
    });
    return { out: () => out.join(''), err: () => err.join('') };
  }

  it.each([
    ['invoices', 'list', '--limit', 'abc'],
    ['invoices', 'list', '--status', 'NOPE'],
    ['trigger', 'invoice.nope'],
    ['invoices', 'get'],
    ['status', '--nope'],
  ])('svc %s %s …', async (...argv) => {
    const io = capture();
    await main(argv);
    const code = process.exitCode;
    vi.restoreAllMocks();
    expect(code).toBe(2);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/^error (?!: )/);
  });

  it('with --json, stdout is one {"error":…} document', async () => {
    const io = capture();
    await main(['invoices', 'list', '--limit', 'abc', '--json']);
    const code = process.exitCode;
    vi.restoreAllMocks();
    expect(code).toBe(2);
    expect(JSON.parse(io.out())).toEqual({
      error: { code: 'usage_error', message: expect.stringContaining('--limit must be a positive whole number'), param: '--limit' },
    });
  });

  it('--help and --version are exit code 0', async () => {
    const io = capture();
    await main(['--version']);
    expect(process.exitCode).toBe(0);
    await main(['invoices', 'pay', '--help']);
    const code = process.exitCode;
    vi.restoreAllMocks();
    expect(code).toBe(0);
    expect(io.out()).toContain('--unconfirmed');
  });
});
