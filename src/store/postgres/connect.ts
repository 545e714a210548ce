import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { namingPool } from './named-pool.js';

export { describePostgresUrl } from '../describe-url.js';

export interface PostgresConnectOptions {
  /** `postgres://user:password@host:port/name`; its password is never shown (describePostgresUrl). */
  url: string;
  /** The pool's bound: at most this many connections to the server (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection, from the server or the pool, before failing (default 5 s). */
  connectTimeoutMs?: number;
  /** Told when an idle connection is lost (the server restarted, an administrator ended it). */
  onIdleError?: (error: Error) => void;
}

/** pg's built-in text parsers: we change only int8's. */
const builtIn = pg.types;
const INT8_OID = 20;
/** pg-types' own parameter types (a type id, `text` or `binary`), so the override fits without a cast. */
type TypeParserArgs = Parameters<typeof builtIn.getTypeParser>;

/**
 * int8 as a JavaScript number: times (ms), seq columns and network ids are bigint columns, and the
 * store works with numbers, as SQLite gives them. pg returns them as strings by default because a
 * bigint can exceed 2^53; none of ours does, and one that did would be refused, never rounded.
 * Per pool (not pg.types.setTypeParser): other users of pg in the same process keep their parsers.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: (oid: TypeParserArgs[0], format?: TypeParserArgs[1]) => {
    if (oid !== INT8_OID || format === 'binary') return builtIn.getTypeParser(oid, format);
    return (value: string) => {
      const n = Number(value);
      if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${value} is beyond what svc stores exactly (2^53)`);
      return n;
    };
  },
};

/**
 * How long a statement waits for a lock another session holds before it gives up (SQLSTATE 55P03,
 * answered 503 `database_busy`: CONTRACT §8, as SQLite's busy timeout). Without it a write waited as
 * long as the lock lasted (a create answered 201 after 19 s) and every pooled connection with it.
 */
export const LOCK_WAIT_MS = 5000;

/**
 * A bounded pool of connections named `svc` in pg_stat_activity, parsing int8 as numbers, each
 * giving up on a lock after LOCK_WAIT_MS (PostgreSQL's own `lock_timeout`, set for the session).
 */
export function createPostgresPool(options: PostgresConnectOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    application_name: 'svc',
    options: `-c lock_timeout=${LOCK_WAIT_MS}`,
    types,
  });
  // An idle connection that the server drops (a restart, pg_terminate_backend) is an 'error' on the
  // pool, which Node throws when nothing listens: the whole process would die of a database restart
  // (CONTRACT §12: reconnect, do not crash). The pool has already discarded the connection; the next
  // query opens a new one.
  pool.on('error', (error) => options.onIdleError?.(error));
  // The pool listens for that only while a connection is idle: one checked out (a transaction between
  // two statements, kysely's connection()) whose server ends it emits 'error' with no listener, and
  // the process dies of it. This listener only keeps it alive: the loss reaches the statement that
  // next uses the connection ("… is not queryable", isDatabaseUnavailable), and pg-pool drops the
  // connection when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * Kysely on PostgreSQL through kysely's own dialect (or `Dialect`, one derived from it) and `pg`
 * (docs/decisions.md), each connection preparing svc's statements once (named-pool.ts). destroy()
 * ends the pool.
 */
export function openPostgres<DB>(options: PostgresConnectOptions, Dialect: typeof PostgresDialect = PostgresDialect): Kysely<DB> {
  return new Kysely<DB>({ dialect: new Dialect({ pool: namingPool(createPostgresPool(options)) }) });
}
