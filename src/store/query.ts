import type BetterSqlite3 from 'better-sqlite3';
import { DummyDriver, Kysely, sql, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Compilable } from 'kysely';
import type { Database } from './schema.js';
import type { Store } from './store.js';

/**
 * Kysely as a typed query builder only: queries are compiled to SQL once and run synchronously by
 * better-sqlite3. Kysely's own driver is asynchronous, which would let two requests interleave
 * inside one transaction; compiling once also keeps kysely off the hot path.
 */
export const qb = new Kysely<Database>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

const SENTINEL = '\u0000param:';

/**
 * A named placeholder for `prepared()`: replaced by the value of `args[name]` at each run.
 * Typed `any` by default so that it fits any column; the row types still check the results.
 */
// biome-ignore lint/suspicious/noExplicitAny: a placeholder must fit any column type.
export function param<T = any>(name: string): T {
  return `${SENTINEL}${name}` as T;
}

type Args = Record<string, unknown>;
type Binder = (args: Args) => unknown[];

/** A statement compiled once, prepared once per database, bound by name at each call. */
export interface Prepared<Row> {
  all(store: Store, args?: Args): Row[];
  get(store: Store, args?: Args): Row | undefined;
  run(store: Store, args?: Args): BetterSqlite3.RunResult;
}

export function prepared<Row>(build: () => Compilable<Row>): Prepared<Row> {
  let compiled: { sql: string; bind: Binder } | undefined;
  const statements = new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement>();
  const statement = (store: Store): [BetterSqlite3.Statement, Binder] => {
    compiled ??= compile(build());
    let stmt = statements.get(store.sqlite);
    if (!stmt) {
      stmt = store.sqlite.prepare(compiled.sql);
      statements.set(store.sqlite, stmt);
    }
    return [stmt, compiled.bind];
  };
  // A failed write marks the storage unhealthy (disk full); try/catch costs nothing when nothing throws.
  return {
    all(store, args = {}) {
      const [stmt, bind] = statement(store);
      try {
        return stmt.all(...bind(args)) as Row[];
      } catch (error) {
        store.health.failed(error);
        throw error;
      }
    },
    get(store, args = {}) {
      const [stmt, bind] = statement(store);
      return stmt.get(...bind(args)) as Row | undefined;
    },
    run(store, args = {}) {
      const [stmt, bind] = statement(store);
      try {
        return stmt.run(...bind(args));
      } catch (error) {
        store.health.failed(error);
        throw error;
      }
    },
  };
}

function compile(query: Compilable<unknown>): { sql: string; bind: Binder } {
  const { sql, parameters } = query.compile();
  type Slot = { name: string } | { value: unknown };
  const slots: Slot[] = parameters.map((p) => (typeof p === 'string' && p.startsWith(SENTINEL) ? { name: p.slice(SENTINEL.length) } : { value: p }));
  return {
    sql,
    bind: (args) =>
      slots.map((slot) => {
        if ('value' in slot) return toSqlite(slot.value);
        if (!(slot.name in args)) throw new Error(`missing query parameter "${slot.name}" for: ${sql}`);
        return toSqlite(args[slot.name]);
      }),
  };
}

/** Runs a query whose shape varies between calls (IN lists, optional filters): compiled each time. */
export function dynamic<Row>(store: Store, query: Compilable<Row>): Row[] {
  const { sql, parameters } = query.compile();
  const stmt = cachedStatement(store, sql);
  const values = parameters.map(toSqlite);
  if (stmt.reader) return stmt.all(...values) as Row[];
  stmt.run(...values);
  return [];
}

const dynamicCache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function cachedStatement(store: Store, sql: string): BetterSqlite3.Statement {
  let cache = dynamicCache.get(store.sqlite);
  if (!cache) dynamicCache.set(store.sqlite, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) {
    // The shapes are few (filters on or off), so the cache stays small; cap it anyway.
    if (cache.size > 500) cache.clear();
    stmt = store.sqlite.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}

function toSqlite(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/**
 * The predicates of the partial indexes, as literal SQL. SQLite uses a partial index only when the
 * query's terms match its WHERE clause with the same constants; kysely would bind 'pending' as a
 * parameter, and the queue and expiry lookups silently became full table scans.
 */
export const DUE_DELIVERY = sql<boolean>`status IN ('pending', 'retrying') AND in_flight = 0`;
export const OPEN_INVOICE = sql<boolean>`status IN ('CREATED', 'PARTIALLY_PAID') AND pending_payments = 0`;
