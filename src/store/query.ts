import type BetterSqlite3 from 'better-sqlite3';
import type { Compilable, Expression, Kysely } from 'kysely';
import { COMPILED, type CompiledStatement, type Slot } from './compiled.js';
import type { Database } from './schema.js';
import type { Store } from './sqlite/store.js';

/**
 * Kysely as a typed query builder only, and only before run time: each statement is written as a
 * kysely builder, compiled to SQL once, and run synchronously by better-sqlite3 (kysely's own driver
 * is asynchronous, which would let two requests interleave inside one transaction).
 *
 * `npm run build` compiles every statement of `src/store/repos/` at build time (scripts/build.mjs,
 * `compile.ts`), so the package never loads kysely: importing it took ~40% of a cold start. Running
 * the sources (tests, `tsc` output), a statement is compiled on its first use with kysely, which
 * `loadQueryBuilder()` loads when the store opens.
 */
export type QueryBuilder = Kysely<Database>;
type KyselyModule = typeof import('kysely');

let kysely: { module: KyselyModule; qb: QueryBuilder } | null = null;

/** Loads kysely when some statements were not compiled at build time (always, running the sources). */
export async function loadQueryBuilder(): Promise<void> {
  if (COMPILED || kysely) return;
  useQueryBuilder(await import('kysely'));
}

/** Makes `module` the builder of statements compiled at first use (the build's compiler passes its own). */
export function useQueryBuilder(module: KyselyModule): void {
  const qb = new module.Kysely<Database>({
    dialect: {
      createAdapter: () => new module.SqliteAdapter(),
      createDriver: () => new module.DummyDriver(),
      createIntrospector: (db) => new module.SqliteIntrospector(db),
      createQueryCompiler: () => new module.SqliteQueryCompiler(),
    },
  });
  kysely = { module, qb };
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

type Args = Record<string, unknown>;

/** A statement compiled once, prepared once per database, bound by name at each call. */
export interface Prepared<Row> {
  all(store: Store, args?: Args): Row[];
  get(store: Store, args?: Args): Row | undefined;
  run(store: Store, args?: Args): BetterSqlite3.RunResult;
}

type Build<Row> = (qb: QueryBuilder) => Compilable<Row>;

/**
 * Every statement, by key, for the build's compiler. The key is given by the build (the file and the
 * statement's place in it, see scripts/build.mjs); running the sources, statements have none.
 */
export const registry = new Map<string, () => CompiledStatement>();

/**
 * A statement built with kysely. Write `prepared((qb) => qb.selectFrom(…)…)` at the top level of a
 * module under src/store/repos/ (the build compiles those): the build adds the key in front.
 */
export function prepared<Row>(build: Build<Row>): Prepared<Row>;
export function prepared<Row>(key: string, build: Build<Row>): Prepared<Row>;
export function prepared<Row>(keyOrBuild: string | Build<Row>, maybeBuild?: Build<Row>): Prepared<Row> {
  const [key, build] = typeof keyOrBuild === 'string' ? [keyOrBuild, maybeBuild!] : [null, keyOrBuild];
  return new Statement<Row>(key, (qb) => build(qb));
}

/**
 * A query whose shape varies with its filters (each on or off): one statement per combination of
 * `flags`, all compiled at build time like `prepared`, and each prepared once when first used.
 */
export interface ByShape<Row, Flag extends string> {
  all(store: Store, shape: Record<Flag, boolean>, args: Args): Row[];
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
  const shape = (mask: number) => new Statement<Row>(key && `${key}/${mask}`, (qb) => build(qb, flagsOf(mask)));
  // Each shape is made on first use; the build's compiler makes them all.
  const shapes: (Statement<Row> | undefined)[] = [];
  if (!COMPILED) for (let mask = 0; mask < 1 << flags.length; mask++) shapes[mask] = shape(mask);
  return {
    all(store, on, args) {
      let mask = 0;
      for (let i = 0; i < flags.length; i++) if (on[flags[i]!]) mask |= 1 << i;
      const statement = (shapes[mask] ??= shape(mask));
      return statement.all(store, args);
    },
  };
}

function builder(key: string | null): QueryBuilder {
  if (!kysely) {
    throw new Error(`svc bug: statement ${key ?? '(no key)'} was not compiled at build time, and kysely is not loaded (loadQueryBuilder)`);
  }
  return kysely.qb;
}

/**
 * One statement: its SQL (from the build's table, or compiled on first use), prepared once per
 * database. Made for every statement when the package loads, so it holds nothing until first used.
 */
class Statement<Row> implements Prepared<Row> {
  private compiled: { sql: string; bind: (args: Args) => unknown[] } | undefined;
  private statements: WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement<unknown[], Row>> | undefined;

  constructor(
    private readonly key: string | null,
    private readonly build: (qb: QueryBuilder) => Compilable<Row>,
  ) {
    // Only the build's compiler reads the registry; dist/ has the SQL already.
    if (key && !COMPILED) registry.set(key, () => compile(build(builder(key))));
  }

  private statement(store: Store): BetterSqlite3.Statement<unknown[], Row> {
    const key = this.key;
    this.compiled ??= binder((key ? COMPILED?.statements[key] : undefined) ?? compile(this.build(builder(key))));
    this.statements ??= new WeakMap();
    let stmt = this.statements.get(store.sqlite);
    if (!stmt) {
      // The row type is the builder's (kysely's typed tables), and its SQL is that builder's: the
      // tables it reads were checked against the schema svc wrote when the database was opened.
      stmt = store.sqlite.prepare<unknown[], Row>(this.compiled.sql);
      this.statements.set(store.sqlite, stmt);
    }
    return stmt;
  }

  // A failed write marks the storage unhealthy (disk full); try/catch costs nothing when nothing throws.
  all(store: Store, args: Args = {}): Row[] {
    const stmt = this.statement(store);
    try {
      return stmt.all(...this.compiled!.bind(args));
    } catch (error) {
      store.health.failed(error);
      throw error;
    }
  }

  get(store: Store, args: Args = {}): Row | undefined {
    const stmt = this.statement(store);
    return stmt.get(...this.compiled!.bind(args));
  }

  run(store: Store, args: Args = {}): BetterSqlite3.RunResult {
    const stmt = this.statement(store);
    try {
      return stmt.run(...this.compiled!.bind(args));
    } catch (error) {
      store.health.failed(error);
      throw error;
    }
  }
}

/** The SQL and parameter slots of a builder: what the build stores for each statement. */
function compile(query: Compilable<unknown>): CompiledStatement {
  const { sql, parameters } = query.compile();
  const slots: Slot[] = parameters.map((p) => (typeof p === 'string' && p.startsWith(SENTINEL) ? p.slice(SENTINEL.length) : { value: toSqlite(p) }));
  return { sql, slots };
}

function binder({ sql, slots }: CompiledStatement): { sql: string; bind: (args: Args) => unknown[] } {
  return {
    sql,
    bind: (args) =>
      slots.map((slot) => {
        if (typeof slot !== 'string') return slot.value;
        if (!(slot in args)) throw new Error(`missing query parameter "${slot}" for: ${sql}`);
        return toSqlite(args[slot]);
      }),
  };
}

function toSqlite(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/**
 * The predicates of the partial indexes, as literal SQL. SQLite uses a partial index only when the
 * query's terms match its WHERE clause with the same constants; kysely would bind 'pending' as a
 * parameter, and the queue and expiry lookups silently became full table scans. Built when a
 * statement using them is compiled, so that defining them loads nothing.
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
      return kysely.module.sql.raw<boolean>(text).toOperationNode();
    },
  };
}
