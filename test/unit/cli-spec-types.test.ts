/**
 * A handler's input is typed from its command's spec (src/cli/spec-input.ts). The type half of this
 * file is checked by tsc (`npx tsc -p tsconfig.json --noEmit` covers test/): each `@ts-expect-error`
 * line must fail to compile, or tsc fails on the unused directive; each `expectTypeOf` must hold.
 * The runtime half holds the run-time mirror of the same rules (what withHandler checks) to
 * commander's own parsing.
 */
import { Option } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ALL_COMMANDS } from '../../src/cli/commands/index.js';
import { createInvoiceSpec, getInvoiceSpec, listInvoicesSpec } from '../../src/cli/commands/invoices/index.js';
import { completionSpec, type devSpec, execSpec, triggerSpec } from '../../src/cli/commands/top.js';
import { listenSpec, setWebhookSpec } from '../../src/cli/commands/webhook/index.js';
import { createContext, type GlobalOptions } from '../../src/cli/context.js';
import { defineCommand, GLOBAL_OPTIONS, type Handler, type Input, type OptionSpec, withHandler } from '../../src/cli/spec.js';
import { inputProblem, optionKey, optionsProblem, type OptionKey } from '../../src/cli/spec-input.js';
import type { InvoiceEventType } from '../../src/webhooks/envelope.js';

/** Compiled only: a handler's body, type-checked without running it. */
const typed = <S extends Parameters<typeof withHandler>[0]>(_spec: S, handler: Handler<S>): Handler<S> => handler;

describe('types: a handler reads what its spec declares, as declared', () => {
  it('options: strings, numbers, switches, choices, repeatable, defaults', () => {
    typed(createInvoiceSpec, async ({ args, options }) => {
      expectTypeOf(options.amount).toEqualTypeOf<string | undefined>();
      expectTypeOf(options.networkId).toEqualTypeOf<number | undefined>();
      expectTypeOf(options.idempotencyKey).toEqualTypeOf<string | undefined>();
      expectTypeOf(args).toEqualTypeOf<Record<never, never>>();
      // @ts-expect-error: --amount is a string, not a number.
      options.amount?.toFixed(2);
      // @ts-expect-error: a string option is not a number.
      const n: number | undefined = options.amount;
      // @ts-expect-error: invoices create declares no --status.
      void options.status;
      // @ts-expect-error: nor any positional argument.
      void args.invoiceId;
      return { data: [n, options.networkId?.toFixed(0)] };
    });
    typed(listInvoicesSpec, async ({ options }) => {
      expectTypeOf(options.status).toEqualTypeOf<'CREATED' | 'CONFIRMING' | 'PARTIALLY_PAID' | 'PAID' | 'EXPIRED' | undefined>();
      expectTypeOf(options.limit).toEqualTypeOf<number | undefined>();
      // @ts-expect-error: not one of the choices.
      const paid: boolean = options.status === 'PAYED';
      return { data: paid };
    });
    typed(setWebhookSpec, async ({ options }) => {
      expectTypeOf(options.header).toEqualTypeOf<readonly string[] | undefined>();
      expectTypeOf(options.enable).toEqualTypeOf<boolean | undefined>();
      return {};
    });
    typed(listenSpec, async ({ options }) => {
      // A default makes it always set.
      expectTypeOf(options.tunnel).toEqualTypeOf<'auto' | 'cloudflared' | 'none'>();
      expectTypeOf(options.timeout).toEqualTypeOf<number | undefined>();
      return {};
    });
    expectTypeOf<Input<typeof devSpec>['options']>().toEqualTypeOf<{
      readonly port?: number;
      readonly host?: string;
      readonly db?: string;
      readonly memory?: boolean;
      readonly database?: string;
      readonly reset?: boolean;
      readonly fixtures?: string;
      readonly snapshot?: string;
      readonly exportOnExit?: string;
      readonly seed?: number;
      readonly clockStart?: string;
      readonly exposeControlPlane?: boolean;
      readonly controlToken?: string;
      readonly publicUrl?: string;
      readonly allowedHost?: readonly string[];
      readonly chains?: boolean;
      readonly webhookAllow?: readonly string[];
    }>();
  });

  it('arguments: required strings, optional ones, choices', () => {
    typed(getInvoiceSpec, async ({ args, options }) => {
      expectTypeOf(args).toEqualTypeOf<{ readonly invoiceId: string }>();
      expectTypeOf(options).toEqualTypeOf<Record<never, never>>();
      // @ts-expect-error: invoices get takes no options.
      void options.amount;
      return {};
    });
    typed(triggerSpec, async ({ args }) => {
      expectTypeOf(args.event).toEqualTypeOf<InvoiceEventType>();
      return {};
    });
    typed(execSpec, async ({ args, options }) => {
      // The rest of the line, after --.
      expectTypeOf(args.command).toEqualTypeOf<readonly string[]>();
      expectTypeOf(options.log).toEqualTypeOf<string | undefined>();
      // @ts-expect-error: a list, not one word.
      const word: string = args.command;
      return { data: word };
    });
    typed(completionSpec, async ({ args }) => {
      expectTypeOf(args.shell).toEqualTypeOf<'bash' | 'zsh' | 'fish'>();
      return {};
    });
    const demo = defineCommand({
      name: 'demo',
      summary: 'a demo',
      args: [
        { name: 'kind', description: 'which', choices: ['a', 'b'] },
        { name: 'extra', description: 'optional', required: false },
      ],
      options: [
        { flags: '--level [n]', description: 'a value, or none' },
        { flags: '--no-cache', description: 'a negated switch' },
        { flags: '--tag <t>', description: 'a tag', repeatable: true, parse: 'int' },
      ],
    });
    const rest = defineCommand({ name: 'rest', summary: 'a demo', args: [{ name: 'words', description: 'after --', variadic: true, choices: ['x', 'y'] }] });
    expectTypeOf<Input<typeof rest>['args']>().toEqualTypeOf<{ readonly words: readonly ('x' | 'y')[] }>();
    expect(inputProblem(rest, { args: { words: ['x', 'y'] }, options: {} })).toBeNull();
    expect(inputProblem(rest, { args: { words: 'x' }, options: {} })).toMatch(/not a list/);
    expect(inputProblem(rest, { args: { words: ['x', 'z'] }, options: {} })).toMatch(/"z": not one of x, y/);
    expectTypeOf<Input<typeof demo>>().toEqualTypeOf<{
      readonly args: { readonly kind: 'a' | 'b'; readonly extra?: string };
      readonly options: { readonly cache: boolean; readonly level?: string | true; readonly tag?: readonly number[] };
    }>();
  });

  it('option keys are camel-cased long names, as commander names them', () => {
    expectTypeOf<OptionKey<'-p, --port <port>'>>().toEqualTypeOf<'port'>();
    expectTypeOf<OptionKey<'--expose-control-plane'>>().toEqualTypeOf<'exposeControlPlane'>();
    expectTypeOf<OptionKey<'--no-color'>>().toEqualTypeOf<'color'>();
    expectTypeOf<GlobalOptions>().toEqualTypeOf<{
      readonly color: boolean;
      readonly baseUrl?: string;
      readonly apiKey?: string;
      readonly profile?: string;
      readonly config?: string;
      readonly json?: boolean;
      readonly quiet?: boolean;
      readonly verbose?: boolean;
    }>();
  });

  it('a spec is bound to a handler of its own', () => {
    const getInvoiceHandler: Handler<typeof getInvoiceSpec> = async () => ({});
    // @ts-expect-error: the handler of invoices get takes an <invoiceId> that invoices create does not have.
    withHandler(createInvoiceSpec, async () => getInvoiceHandler);
    expect(withHandler(getInvoiceSpec, async () => getInvoiceHandler).name).toBe('invoices get');
  });
});

describe('run time: the same rules', () => {
  const declared: readonly OptionSpec[] = [...GLOBAL_OPTIONS, ...ALL_COMMANDS.flatMap((c) => c.options ?? [])];

  it.each(declared.map((o) => [o.flags]))('the key of %s is the one commander uses', (flags) => {
    expect(optionKey(flags)).toBe(new Option(flags).attributeName());
  });

  it('every default is a value of its option', () => {
    for (const o of declared.filter((d) => d.defaultValue !== undefined)) {
      expect(optionsProblem([o], { [optionKey(o.flags)]: o.defaultValue }), o.flags).toBeNull();
    }
  });

  it.each([
    [{ args: {}, options: {} }, 'argument <invoiceId> is missing', /<invoiceId> is undefined: not a string/],
    [{ args: { invoiceId: 'i-1', other: 'x' }, options: {} }, 'an undeclared argument', /argument "other" is not declared/],
    [{ args: { invoiceId: 'i-1' }, options: { amount: '5' } }, 'an undeclared option', /option "amount" is not declared/],
  ])('invoices get: %j (%s)', (input, _what, problem) => {
    expect(inputProblem(getInvoiceSpec, input)).toMatch(problem);
  });

  it.each([
    [{ networkId: '84532' }, /--network-id is "84532": not a whole number/],
    [{ amount: 5 }, /--amount is 5: not a string/],
    [{ amount: '5', networkId: 84532 }, null],
  ])('invoices create: %j', (options, problem) => {
    const found = inputProblem(createInvoiceSpec, { args: {}, options });
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it.each([
    [{ tunnel: 'auto', header: 'X-A: 1' }, /--header is not a list/],
    [{ tunnel: 'auto', header: ['X-A: 1', 2] }, /--header is 2: not a string/],
    [{ tunnel: 'ssh' }, /--tunnel is "ssh": not one of auto, cloudflared, none/],
    [{}, /--tunnel has no value, though it is always set/],
    [{ tunnel: 'none', printSecret: 'yes' }, /--print-secret is "yes": not a boolean/],
    [{ tunnel: 'none', header: ['X-A: 1'], printSecret: true, timeout: 3 }, null],
  ])('webhook listen: %j', (options, problem) => {
    const found = inputProblem(listenSpec, { args: {}, options });
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('a handler is never given what its spec does not declare: withHandler refuses it as a bug', async () => {
    let ran = false;
    const command = withHandler(getInvoiceSpec, async () => async () => {
      ran = true;
      return {};
    });
    const run = await command.load();
    const ctx = createContext({ globals: { color: false }, env: {} });
    await expect(run({ args: { invoiceId: 'i-1' }, options: { limit: 5 } }, ctx)).rejects.toThrow(
      /svc bug: "invoices get" was given what its spec does not declare: option "limit" is not declared/,
    );
    expect(ran).toBe(false);
    await run({ args: { invoiceId: 'i-1' }, options: {} }, ctx);
    expect(ran).toBe(true);
  });
});
