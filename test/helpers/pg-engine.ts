/**
 * The repositories on one PostgreSQL handle, for repository-level tests (postgres-repos*.test.ts and
 * others): each function takes a PgHandle (the pool's kysely, or a transaction's) first, as the
 * engine's runner does (src/store/postgres/runner.ts). Tests only.
 */
import type { Repositories, Runner } from '../../src/store/engine.js';
import { openPostgresHandle } from '../../src/store/postgres/engine.js';
import type { PgHandle } from '../../src/store/postgres/handle.js';
import { postgresRunner } from '../../src/store/postgres/runner.js';
import { repositories } from '../../src/store/repos/index.js';

type OnHandle<M, H> = {
  [K in keyof M]: M[K] extends (db: Runner, ...args: infer A) => infer R ? (handle: H, ...args: A) => R : M[K];
};

/** An engine as the repository tests drive it: a handle, the repositories on any handle, transactions. */
export interface StoreEngine<H> {
  readonly db: H;
  readonly repos: { [K in Exclude<keyof Repositories, 'meta'>]: OnHandle<Repositories[K], H> } & {
    meta: Omit<OnHandle<Repositories['meta'], H>, 'getMeta'> & {
      getMeta<T>(handle: H, key: string, is: (value: unknown) => value is T): Promise<T | undefined>;
    };
  };
  transaction<T>(fn: (tx: H) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Connects to `url`, migrates, and hands the repositories over on PostgreSQL handles. */
export async function openPostgresEngine(options: { url: string; maxConnections?: number }): Promise<StoreEngine<PgHandle>> {
  const db = await openPostgresHandle(options);
  const repos: Record<string, Record<string, unknown>> = {};
  for (const [name, repo] of Object.entries(repositories)) {
    const onHandle: Record<string, unknown> = {};
    for (const [fnName, fn] of Object.entries(repo)) {
      onHandle[fnName] = typeof fn === 'function' ? (handle: PgHandle, ...args: unknown[]) => fn(postgresRunner(handle), ...args) : fn;
    }
    repos[name] = onHandle;
  }
  return {
    db,
    repos: repos as unknown as StoreEngine<PgHandle>['repos'],
    transaction: (fn) => db.transaction().execute(fn),
    close: () => db.destroy(),
  };
}
