import { internalsOf } from '../../src/server/internals.js';
import { startEmulator, type Emulator, type StartEmulatorOptions } from '../../src/server/start.js';
import type { Store } from '../../src/store/sqlite/store.js';
import { freshPostgresDatabase, testEngine } from './postgres-database.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined when the body is not JSON. */
  body: T;
  text: string;
}

export interface CallOptions {
  /** Bearer key; omitted → no Authorization header. */
  key?: string;
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  raw?: string | Buffer;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/** The public Emulator, plus what only our tests may touch: its database, and a small client. */
export interface TestEmulator extends Emulator {
  /** The emulator's database (not part of the public type; see src/server/internals.ts). */
  readonly store: Store;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /**
   * One SQL statement on the emulator's database, SQLite or PostgreSQL: rows as objects. Write it in
   * the SQL both engines share (counts come back as numbers on both).
   */
  query(sqlText: string): Promise<Record<string, unknown>[]>;
}

/**
 * A real emulator on port 0, plus a small client. Its database: in memory, or a fresh PostgreSQL
 * database when the run is on PostgreSQL (TEST_STORE_ENGINE=postgres, the *-postgres projects of
 * vitest.config.ts), unless the test names a SQLite file or a database itself.
 */
export async function startTestEmulator(options: StartEmulatorOptions = {}): Promise<TestEmulator> {
  const onPostgres = testEngine() === 'postgres' && (options.db === undefined || options.db === ':memory:') && options.database === undefined;
  const { db, ...rest } = options;
  const storage = onPostgres ? { database: await freshPostgresDatabase() } : rest.database !== undefined ? {} : { db: db ?? ':memory:' };
  const emulator = await startEmulator({ port: 0, ...storage, ...rest });
  const call = (method: string, path: string, options: CallOptions = {}) => request(emulator.url, method, path, options);
  const { store } = internalsOf(emulator);
  // A getter (Object.assign would read it at once): only a test that reads it fails on PostgreSQL.
  Object.defineProperty(emulator, 'store', {
    get: (): Store => {
      if (!store) throw new Error('this test reads the SQLite store: list it among the SQLite-only files in vitest.config.ts');
      return store;
    },
  });
  const query = (text: string) => internalsOf(emulator).query(text);
  return Object.assign(emulator as Emulator & { readonly store: Store }, { call, query });
}

export async function request<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  let body: string | Buffer | undefined = options.raw;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  // Redirects are part of what is tested (the bind page answers 303): never follow them.
  const res = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

let counter = 0;
/** A fresh idempotency key per call. */
export const ikey = (): string => `test-${process.pid}-${Date.now()}-${++counter}`;
