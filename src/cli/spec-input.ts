import type { ArgSpec, CommandSpec, OptionSpec } from './spec.js';

/**
 * What a handler receives, derived from its command's spec: at the type level (`Input<typeof spec>`,
 * for the handler's parameter) and at run time (`inputProblem`, which checks what commander parsed
 * against the same spec before the handler sees it). The two mirror each other rule for rule: change
 * one, change the other (test/unit/cli-spec-types.test.ts holds them together).
 */

/** `expose-control-plane` → `exposeControlPlane`, as commander names an option's value. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** The long name in commander syntax: `-p, --port <port>` → `port`. */
type LongName<F extends string> = F extends `${string}--${infer Rest}` ? (Rest extends `${infer Name} ${string}` ? Name : Rest) : never;

/** The key of an option's value in `input.options`: `--network-id <id>` → `networkId`, `--no-color` → `color`. */
export type OptionKey<F extends string> = CamelCase<LongName<F> extends `no-${infer Name}` ? Name : LongName<F>>;

type Negated<F extends string> = LongName<F> extends `no-${string}` ? true : false;

/** `<value>`: the option takes a value; `[value]`: it may; neither: a switch. */
type Placeholder<F extends string> = F extends `${string}<${string}>${string}` ? 'value' : F extends `${string}[${string}]${string}` ? 'maybe' : 'switch';

/** One value as parsed: a choice, a whole number (`parse: 'int' | 'positive-int'`), or the text. */
type OneValue<O extends OptionSpec> = O extends { choices: readonly (infer C)[] } ? C : O extends { parse: 'int' | 'positive-int' } ? number : string;

type OptionValue<O extends OptionSpec> =
  Placeholder<O['flags']> extends 'switch' ? boolean : Placeholder<O['flags']> extends 'maybe' ? OneValue<O> | true : OneValue<O>;

/** Repeatable options collect their values, in order. */
type Collected<O extends OptionSpec> = O extends { repeatable: true } ? readonly OptionValue<O>[] : OptionValue<O>;

/** Set even when not given: a default, or a `--no-…` switch (true unless given). */
type AlwaysSet<O extends OptionSpec> = O extends { defaultValue: string | number | boolean } ? true : Negated<O['flags']>;

/** No keys: what a command without arguments or options gets (`{}` would accept anything non-null). */
type Empty = Record<never, never>;

/** One object type instead of an intersection (readable in editors and errors). */
type Simplify<T> = { [K in keyof T]: T[K] };

/**
 * `input.options` of a command declaring `Os`: optional unless always set. (No options: said
 * outright; mapped over nothing, the key's template type would leave an index signature behind.)
 */
export type OptionsOf<Os extends readonly OptionSpec[]> = [Os[number]] extends [never]
  ? Empty
  : Simplify<
      { readonly [O in Os[number] as AlwaysSet<O> extends true ? OptionKey<O['flags']> : never]: Collected<O> } & {
        readonly [O in Os[number] as AlwaysSet<O> extends true ? never : OptionKey<O['flags']>]?: Collected<O>;
      }
    >;

type OneArg<A extends ArgSpec> = A extends { choices: readonly (infer C)[] } ? C : string;

/** A variadic argument collects the rest of the line (`svc exec -- node test.js`): a list. */
type ArgValue<A extends ArgSpec> = A extends { variadic: true } ? readonly OneArg<A>[] : OneArg<A>;

/** `input.args` of a command declaring `As`: by name, optional only with `required: false`. */
export type ArgsOf<As extends readonly ArgSpec[]> = [As[number]] extends [never]
  ? Empty
  : Simplify<
      { readonly [A in As[number] as A extends { required: false } ? never : A['name']]: ArgValue<A> } & {
        readonly [A in As[number] as A extends { required: false } ? A['name'] : never]?: ArgValue<A>;
      }
    >;

/** What the handler of `S` receives: `Handler<typeof spec>` takes it. */
export type Input<S> = S extends CommandSpec<infer As, infer Os> ? { readonly args: ArgsOf<As>; readonly options: OptionsOf<Os> } : never;

/** What the program hands over, before it is checked against the spec: commander's values. */
export interface HandlerInput {
  /** Positional arguments by name. */
  args: Record<string, unknown>;
  /** Options by camel-cased name (`--network-id` → `networkId`). */
  options: Record<string, unknown>;
}

// ---- The same rules at run time ----

/** What an option's flags say (`-p, --port <port>`): its spellings, long name, key and kind of value. */
export interface FlagsRead {
  /** Every spelling: `-p`, `--port`. */
  names: string[];
  /** The long name without its dashes: `port`, `no-color`. */
  long: string;
  /** OptionKey: `networkId`, `color`. */
  key: string;
  kind: 'value' | 'maybe' | 'switch';
}

const read = new Map<string, FlagsRead>();

/**
 * `flags` read once per process: every command checks the global options and its own several times
 * (src/cli/fast-parse.ts, then the checks below), and with these regular expressions each time that
 * was ~0.3 ms of every start (bench #9, #12).
 */
export function readFlags(flags: string): FlagsRead {
  let known = read.get(flags);
  if (!known) {
    // By hand, not with regular expressions: compiling five of them was most of this (~0.2 ms of every
    // start). test/unit/spec-input-flags.test.ts holds it to the expressions it replaces.
    const names = words(flags).filter((f) => f.startsWith('-'));
    const long = names.find((f) => f.startsWith('--'))?.slice(2) ?? '';
    known = { names, long, key: attributeName(long), kind: enclosed(flags, '<', '>') ? 'value' : enclosed(flags, '[', ']') ? 'maybe' : 'switch' };
    read.set(flags, known);
  }
  return known;
}

/** `flags.split(/[ ,|]+/)`, without the empty words. */
function words(flags: string): string[] {
  const out: string[] = [];
  let word = '';
  for (const c of flags) {
    if (c === ' ' || c === ',' || c === '|') {
      if (word) out.push(word);
      word = '';
    } else word += c;
  }
  if (word) out.push(word);
  return out;
}

/** commander's `attributeName()`: `no-` dropped, `-x` as `X` (`network-id` → `networkId`). */
function attributeName(long: string): string {
  const name = long.startsWith('no-') ? long.slice(3) : long;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    if (name[i] === '-' && i + 1 < name.length && name[i + 1] !== '-') out += name[++i]!.toUpperCase();
    else out += name[i];
  }
  return out;
}

/** Whether `open` appears with a `close` after it (`/<[^>]*>/`). */
function enclosed(flags: string, open: string, close: string): boolean {
  const at = flags.indexOf(open);
  return at !== -1 && flags.indexOf(close, at + 1) !== -1;
}

const longName = (flags: string): string => readFlags(flags).long;

/** OptionKey, at run time: commander's `attributeName()` of the option. */
export const optionKey = (flags: string): string => readFlags(flags).key;

const placeholder = (flags: string): FlagsRead['kind'] => readFlags(flags).kind;

function valueProblem(o: OptionSpec, value: unknown): string | null {
  const kind = placeholder(o.flags);
  if (kind === 'switch') return typeof value === 'boolean' ? null : 'not a boolean';
  if (kind === 'maybe' && value === true) return null;
  if (o.choices) return typeof value === 'string' && o.choices.includes(value) ? null : `not one of ${o.choices.join(', ')}`;
  if (o.parse === 'int' || o.parse === 'positive-int') return Number.isSafeInteger(value) ? null : 'not a whole number';
  return typeof value === 'string' ? null : 'not a string';
}

/** What is wrong with `values` as the options `specs` declare (OptionsOf), or null. */
export function optionsProblem(specs: readonly OptionSpec[], values: Record<string, unknown>): string | null {
  const byKey = new Map(specs.map((o) => [optionKey(o.flags), o]));
  const unknown = Object.keys(values).find((k) => !byKey.has(k));
  if (unknown !== undefined) return `option "${unknown}" is not declared`;
  for (const [key, o] of byKey) {
    const value = values[key];
    const flag = `--${longName(o.flags)}`;
    if (value === undefined) {
      if (o.defaultValue !== undefined || longName(o.flags).startsWith('no-')) return `${flag} has no value, though it is always set`;
      continue;
    }
    const each = o.repeatable ? value : [value];
    if (!Array.isArray(each)) return `${flag} is not a list`;
    for (const v of each) {
      const problem = valueProblem(o, v);
      if (problem) return `${flag} is ${JSON.stringify(v)}: ${problem}`;
    }
  }
  return null;
}

/** What is wrong with `input` as the spec declares it (Input), or null. */
export function inputProblem(spec: CommandSpec, input: HandlerInput): string | null {
  const args = spec.args ?? [];
  const unknown = Object.keys(input.args).find((k) => !args.some((a) => a.name === k));
  if (unknown !== undefined) return `argument "${unknown}" is not declared`;
  for (const a of args) {
    const value = input.args[a.name];
    if (value === undefined && a.required === false) continue;
    if (a.variadic && !Array.isArray(value)) return `<${a.name}…> is ${JSON.stringify(value)}: not a list`;
    const values: unknown[] = a.variadic && Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v !== 'string') return `<${a.name}> is ${JSON.stringify(v)}: not a string`;
      if (a.choices && !a.choices.includes(v)) return `<${a.name}> is "${v}": not one of ${a.choices.join(', ')}`;
    }
  }
  return optionsProblem(spec.options ?? [], input.options);
}

/** `input` holds what `spec` declares, typed accordingly. */
export function isInputOf<S extends CommandSpec>(spec: S, input: HandlerInput): input is HandlerInput & Input<S> {
  return inputProblem(spec, input) === null;
}

/** `values` holds the options `specs` declare, typed accordingly. */
export function isOptionsOf<Os extends readonly OptionSpec[]>(specs: Os, values: Record<string, unknown>): values is Record<string, unknown> & OptionsOf<Os> {
  return optionsProblem(specs, values) === null;
}
