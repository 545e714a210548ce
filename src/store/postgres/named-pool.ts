import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { sqlState } from './handle.js';
import { monotonicMs } from '../../clock/monotonic.js';

/** Texts a connection names at most: svc's statements are a fixed set; a text past the bound runs unnamed. */
export const MAX_NAMED = 256;

/** A statement whose prepared plan PostgreSQL can no longer use: its tables changed shape (another svc's migration). */
const STALE_PLAN = '0A000';

/**
 * kysely's pool (its `PostgresPool` interface) over pg's, each connection running a statement with
 * parameters as a named prepared statement (pg's own query config `{ name, text, values }`), so that
 * the server parses and plans each of svc's statements once per connection instead of at every
 * call. A read of one invoice costs the server about as much to parse and plan as to run. Statements
 * without parameters run as simple queries, which may hold several commands (a transaction's BEGIN
 * and its reset lock: reset.ts).
 */
export function namingPool(pool: pg.Pool, waitMs = CONNECT_WAIT_MS): PostgresPool {
  const names = new WeakMap<pg.PoolClient, Map<string, string>>();
  return {
    async connect() {
      const client = await connectPatiently(pool, waitMs);
      let own = names.get(client);
      if (!own) names.set(client, (own = new Map()));
      return new NamingClient(client, own);
    },
    end: () => pool.end(),
  };
}

let given = 0;

/** How long a request waits for a connection while PostgreSQL is at its connection limit (CONTRACT §12). */
const CONNECT_WAIT_MS = 5000;

/**
 * SQLSTATEs of a server that will take a connection a moment later: 53300 too_many_connections (its
 * `max_connections` reached, other clients hold them), 57P03 cannot_connect_now (starting up).
 */
const COME_BACK_LATER = new Set(['53300', '57P03']);

/**
 * A pooled connection; while the server refuses new ones for now, tried again (50 ms, then up to
 * 500 ms apart) for up to `waitMs` before the refusal is passed on (503 database_unavailable). At
 * PostgreSQL's connection limit, half of a burst's requests answered 503 at once.
 */
async function connectPatiently(pool: pg.Pool, waitMs: number): Promise<pg.PoolClient> {
  const started = monotonicMs();
  for (let delay = 50; ; delay = Math.min(500, delay * 2)) {
    try {
      return await pool.connect();
    } catch (error) {
      if (!COME_BACK_LATER.has(sqlState(error) ?? '') || monotonicMs() - started + delay > waitMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

class NamingClient implements PostgresPoolClient {
  constructor(
    private readonly client: pg.PoolClient,
    /** This connection's names, by text: a name is never given to another text. */
    private readonly names: Map<string, string>,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(what: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // kysely streams only with a cursor class in the dialect's config, which svc does not give.
    if (typeof what !== 'string') throw new Error('svc bug: a streamed PostgreSQL query');
    return this.run<R>(what, [...(parameters ?? [])]);
  }

  release(): void {
    this.client.release();
  }

  private async run<R>(text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    const name = values.length > 0 ? this.nameOf(text) : undefined;
    try {
      const result = name === undefined ? await this.client.query(text, values) : await this.client.query({ name, text, values });
      return { command: commandOf(result.command), rowCount: result.rowCount ?? 0, rows: result.rows };
    } catch (error) {
      // "cached plan must not change result type": a table changed since the plan was made. The
      // name is retired; the next use plans the statement afresh under a new one.
      if (name !== undefined && sqlState(error) === STALE_PLAN) this.names.delete(text);
      throw error;
    }
  }

  private nameOf(text: string): string | undefined {
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= MAX_NAMED) return name;
    const fresh = `svc_${given++}`;
    this.names.set(text, fresh);
    return fresh;
  }
}

const COMMANDS = ['UPDATE', 'DELETE', 'INSERT', 'SELECT', 'MERGE'] as const;

function commandOf(command: string): PostgresQueryResult<unknown>['command'] {
  return COMMANDS.find((c) => c === command) ?? 'SELECT';
}
