import type BetterSqlite3 from 'better-sqlite3';
import type { Compilable, Expression, Kysely } from 'kysely';
import { COMPILED, type CompiledStatement, type Slot } from './compiled.js';
import type { Database } from './schema.js';

/**
 * Kysely as a typed query builder only: each statement of the repositories is written once as a
 * kysely builder, and compiled to SQL once per dialect (SQLite's and PostgreSQL's compilers serve
 * the same builder). An engine runs the compiled text with its own driver (./engine.ts `Runner`):
 * better-sqlite3 synchronously, pg through kysely's executeQuery.
 *
 * `npm run build` compiles every statement of `src/store/repos/` for SQLite at build time
 * (scripts/build.mjs, `compile.ts`), so that a SQLite emulator never loads kysely: importing it took
 * ~40% of a cold start. Running the sources (tests, `tsc` output), and on PostgreSQL (whose engine
 * loads kysely anyway), a statement is compiled on its first use in that dialect.
 */
export type QueryBuilder = Kysely<Database>;
type KyselyModule = typeof import('kysely');

/** A SQL dialect the statements compile to: its name, and kysely's builder with its compiler. */
export interface Dialect {
  readonly name: string;
  readonly qb: QueryBuilder;
}

let kysely: KyselyModule | null = null;
let sqlite: Dialect | null = null;

/** Loads kysely when some statements were not compiled at build time (always, running the sources). */
export async function loadQueryBuilder(): Promise<void> {
  if (COMPILED || sqlite) return;
  useQueryBuilder(await import('kysely'));
}

/** Makes `module` the builder of statements compiled at first use (the build's compiler passes its own). */
export function useQueryBuilder(module: KyselyModule): void {
  kysely = module;
  sqlite = {
    name: 'sqlite',
    qb: new module.Kysely<Database>({
      dialect: {
        createAdapter: () => new module.SqliteAdapter(),
        createDriver: () => new module.DummyDriver(),
        createIntrospector: (db) => new module.SqliteIntrospector(db),
        createQueryCompiler: () => new module.SqliteQueryCompiler(),
      },
    }),
  };
}

const SENTINEL = '\u0000param:';

/**
 * A named placeholder: replaced by the value of `args[name]` at each run.
 * Typed `any` by default so that it fits any column; the row types still check the results.
 */
// biome-ignore lint/suspicious/noExplicitAny: a placeholder must fit any column type.
export function param<T = any>(name: string): T {
  return `${SENTINEL}${name}` as T;
}

export type Args = Record<string, unknown>;

/** A statement compiled for one dialect: its text, and its parameters bound by name. */
export interface Compiled {
  readonly sql: string;
  bind(args: Args): unknown[];
}

type Build<Row> = (qb: QueryBuilder) => Compilable<Row>;

/**
 * Every statement, by key, for the build's compiler. The key is given by the build (the file and the
 * statement's place in it, see scripts/build.mjs); running the sources, statements have none.
 */
export const registry = new Map<string, () => CompiledStatement>();

/**
 * One statement of the repositories, compiled once per dialect when first used there. `Row` is the
 * builder's row type (kysely's typed tables): the tables it reads were checked against the schema
 * svc wrote when the database was opened. Made for every statement when the package loads, so it
 * holds nothing until first used.
 */
export class Statement<Row> {
  /** Phantom: keeps `Row` part of the type, so a runner's answer is typed by the statement. */
  declare readonly row: Row;
  private sqliteCompiled: Compiled | undefined;
  /** SQLite's prepared statement, per connection (sqlite/runner.ts). */
  private sqlitePrepared: WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement<unknown[], Row>> | undefined;
  private readonly others = new Map<string, Compiled>();

  constructor(
    readonly key: string | null,
    private readonly build: Build<Row>,
  ) {
    // Only the build's compiler reads the registry; dist/ has the SQL already.
    if (key && !COMPILED) registry.set(key, () => compile(build(builder(key))));
  }

  /** SQLite's text: from the build's table, or compiled on first use. */
  get forSqlite(): Compiled {
    const key = this.key;
    this.sqliteCompiled ??= binder((key ? COMPILED?.statements[key] : undefined) ?? compile(this.build(builder(key))));
    return this.sqliteCompiled;
  }

  /** This statement prepared on a SQLite connection, once per connection. */
  preparedOn(sqlite: BetterSqlite3.Database): BetterSqlite3.Statement<unknown[], Row> {
    this.sqlitePrepared ??= new WeakMap();
    let stmt = this.sqlitePrepared.get(sqlite);
    if (!stmt) {
      stmt = sqlite.prepare<unknown[], Row>(this.forSqlite.sql);
      this.sqlitePrepared.set(sqlite, stmt);
    }
    return stmt;
  }

  /** Another dialect's text, compiled on first use there. */
  compiledFor(dialect: Dialect): Compiled {
    let compiled = this.others.get(dialect.name);
    if (!compiled) {
      compiled = binder(compile(this.build(dialect.qb)));
      this.others.set(dialect.name, compiled);
    }
    return compiled;
  }
}

/** A statement built with kysely. Write `prepared((qb) => qb.selectFrom(…)…)` at the top level of a module under src/store/repos/ (the build compiles those): the build adds the key in front. */
export function prepared<Row>(build: Build<Row>): Statement<Row>;
export function prepared<Row>(key: string, build: Build<Row>): Statement<Row>;
export function prepared<Row>(keyOrBuild: string | Build<Row>, maybeBuild?: Build<Row>): Statement<Row> {
  const [key, build] = typeof keyOrBuild === 'string' ? [keyOrBuild, maybeBuild!] : [null, keyOrBuild];
  return new Statement<Row>(key, build);
}

/**
 * A query whose shape varies with its filters (each on or off): one statement per combination of
 * `flags`, all compiled at build time like `prepared`, each compiled for a dialect when first used.
 */
export interface ByShape<Row, Flag extends string> {
  /** The statement for the filters `on` names. */
  shape(on: Record<Flag, boolean>): Statement<Row>;
}

/** `on` names the filters in use; a flag left out is off. */
type BuildShape<Row, Flag extends string> = (qb: QueryBuilder, on: Partial<Record<Flag, boolean>>) => Compilable<Row>;

export function preparedByShape<Row, Flag extends string>(flags: readonly Flag[], build: BuildShape<Row, Flag>): ByShape<Row, Flag>;
export function preparedByShape<Row, Flag extends string>(key: string, flags: readonly Flag[], build: BuildShape<Row, Flag>): ByShape<Row, Flag>;
export function preparedByShape<Row, Flag extends string>(
  ...input: [readonly Flag[], BuildShape<Row, Flag>] | [string, readonly Flag[], BuildShape<Row, Flag>]
): ByShape<Row, Flag> {
  const [key, flags, build] = input.length === 3 ? input : [null, ...input];
  const flagsOf = (mask: number) => {
    const on: Partial<Record<Flag, boolean>> = {};
    flags.forEach((flag, i) => {
      on[flag] = (mask & (1 << i)) !== 0;
    });
    return on;
  };
  const make = (mask: number) => new Statement<Row>(key && `${key}/${mask}`, (qb) => build(qb, flagsOf(mask)));
  // Each shape is made on first use; the build's compiler makes them all.
  const shapes: (Statement<Row> | undefined)[] = [];
  if (!COMPILED) for (let mask = 0; mask < 1 << flags.length; mask++) shapes[mask] = make(mask);
  return {
    shape(on) {
      let mask = 0;
      for (let i = 0; i < flags.length; i++) if (on[flags[i]!]) mask |= 1 << i;
      return (shapes[mask] ??= make(mask));
    },
  };
}

function builder(key: string | null): QueryBuilder {
  if (!sqlite) {
    throw new Error(`svc bug: statement ${key ?? '(no key)'} was not compiled at build time, and kysely is not loaded (loadQueryBuilder)`);
  }
  return sqlite.qb;
}

/** The SQL and parameter slots of a builder: what the build stores for each statement. */
function compile(query: Compilable<unknown>): CompiledStatement {
  const { sql, parameters } = query.compile();
  const slots: Slot[] = parameters.map((p) => (typeof p === 'string' && p.startsWith(SENTINEL) ? p.slice(SENTINEL.length) : { value: toStored(p) }));
  return { sql, slots };
}

function binder({ sql, slots }: CompiledStatement): Compiled {
  return {
    sql,
    bind: (args) =>
      slots.map((slot) => {
        if (typeof slot !== 'string') return slot.value;
        if (!(slot in args)) throw new Error(`missing query parameter "${slot}" for: ${sql}`);
        return toStored(args[slot]);
      }),
  };
}

/** Flags are integer 0/1 columns on both engines (schema.ts). */
function toStored(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/**
 * The predicates of the partial indexes, as literal SQL. SQLite uses a partial index only when the
 * query's terms match its WHERE clause with the same constants; kysely would bind 'pending' as a
 * parameter, and the queue and expiry lookups silently became full table scans. PostgreSQL's
 * planner matches the same literal terms against its partial indexes. Built when a statement using
 * them is compiled, so that defining them loads nothing.
 */
export const DUE_DELIVERY = literalPredicate("status IN ('pending', 'retrying') AND in_flight = 0");
export const OPEN_INVOICE = literalPredicate("status IN ('CREATED', 'PARTIALLY_PAID') AND pending_payments = 0");
/** Claimed deliveries (the partial index deliveries_leased, 0008): lease sweeps read only these. */
export const LEASED_DELIVERY = literalPredicate('in_flight = 1');

function literalPredicate(text: string): Expression<boolean> {
  // kysely recognises an expression by its shape (`expressionType`, `toOperationNode`).
  return {
    expressionType: undefined,
    toOperationNode: () => {
      if (!kysely) throw new Error('svc bug: a statement was compiled before kysely was loaded');
      return kysely.sql.raw<boolean>(text).toOperationNode();
    },
  };
}

/** kysely, for an engine's dialect (the PostgreSQL engine hands its own module over: ./postgres/runner.ts). */
export function useKysely(module: KyselyModule): void {
  if (!kysely) kysely = module;
}
