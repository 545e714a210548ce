import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { alone, carrying, DEFERRED, type KeptWrite, keptWrite, MAX_KEPT, mayCarry, tablesOf, touchesAny } from './deferred-writes.js';
import { sqlState } from './repos/handle.js';
import { type BatchStatement, sendBatch } from './statement-batch.js';

/**
 * kysely's pool, over pg's, with one change: a statement with parameters runs as a named prepared
 * statement of its connection, so the server parses and plans it once per connection instead of on
 * every call. svc's statements are a fixed set of texts (kysely compiles the same text for the same
 * query shape), and a read's or a create's statements are single-row lookups whose parse and plan
 * cost the server as much as running them: half its CPU for a read of one invoice (issue 27).
 *
 * Bounded: a connection names at most MAX_NAMED texts (first come), and runs the others unnamed
 * as before; texts that vary with their inputs (a multi-row INSERT) stop taking names once the
 * bound is reached, and the server keeps at most that many plans per connection. Statements without
 * parameters go unnamed when sent alone: pg sends them as simple queries, which may hold several
 * statements (a claim's turn, deliveries.ts); in a batch (below) every statement takes a name.
 *
 * The same wrapper keeps a transaction's deferred writes until its next statement (deferred-writes.ts),
 * and holds a transaction's BEGIN until its first statement: the BEGIN and that statement (with the
 * kept writes it carries or that go before it), or the kept writes and the COMMIT, then go in one
 * round trip (statement-batch.ts). A create is two round trips instead of three: BEGIN, the reset
 * lock and the idempotency record's statement carrying the invoice and its event; then COMMIT.
 */
export const MAX_NAMED = 256;

/** kysely's PostgresPool over `pool`, naming each connection's statements (see above). */
export function namingStatements(pool: pg.Pool, types?: pg.CustomTypesConfig): PostgresPool {
  /** Per connection (pg's client, reused by the pool until it is dropped). */
  const named = new WeakMap<pg.PoolClient, Names>();
  return {
    async connect() {
      const client = await pool.connect();
      let names = named.get(client);
      if (!names) named.set(client, (names = { byText: new Map(), given: 0, inTransaction: false, begin: null, kept: [] }));
      return new NamingClient(client, names, types);
    },
    end: () => pool.end(),
  };
}

/** A connection's names: text → name, and how many were given (a retired name is never given again). */
interface Names {
  byText: Map<string, string>;
  given: number;
  /** Between a BEGIN and its COMMIT or ROLLBACK on this connection. */
  inTransaction: boolean;
  /** A BEGIN not sent yet (its statements): it goes with the transaction's first statement. */
  begin: Statement[] | null;
  /** Deferred writes waiting for the transaction's next statement (deferred-writes.ts). */
  kept: KeptWrite[];
}

const TRANSACTION_STARTS = /^\s*(?:begin|start\s+transaction)\b/i;
/** COMMIT, END, ABORT or ROLLBACK, not ROLLBACK TO (a savepoint: the transaction goes on). */
const TRANSACTION_ENDS = /^\s*(?:commit|end|abort)\b|^\s*rollback\s*(?:;|$|and\b|work\b|transaction\b)/i;
/** The ends among those that throw the transaction's work away. */
const ROLLS_BACK = /^\s*(?:rollback|abort)\b/i;

const COMMANDS = ['UPDATE', 'DELETE', 'INSERT', 'SELECT', 'MERGE'] as const;

/** A statement whose prepared plan PostgreSQL can no longer use: its tables changed shape (another svc's migration). */
const STALE_PLAN = '0A000';

/** A statement's text and its parameters, as kysely hands them over. */
interface Statement {
  text: string;
  values: unknown[];
}

/** What a statement that was not sent answers (a held BEGIN, an empty transaction's end). */
const NOTHING_SENT = { command: 'SELECT', rowCount: 0, rows: [] } as const;

class NamingClient implements PostgresPoolClient {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: Names,
    private readonly types: pg.CustomTypesConfig | undefined,
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

  private async run<R>(statement: string, parameters: unknown[]): Promise<PostgresQueryResult<R>> {
    if (statement.startsWith(DEFERRED)) return this.keep(statement.slice(DEFERRED.length), parameters);
    // kysely's transactions are statements on this connection: BEGIN (reset.ts's, or kysely's own) to
    // COMMIT or ROLLBACK. The BEGIN is held (a simple query's statements, split: none holds a `;` of
    // its own) until the transaction's first statement, which it goes with.
    if (parameters.length === 0 && TRANSACTION_STARTS.test(statement) && !this.names.inTransaction) {
      this.names.begin = statement
        .split(';')
        .map((text) => ({ text: text.trim(), values: [] }))
        .filter((s) => s.text !== '');
      this.names.inTransaction = true;
      return { ...NOTHING_SENT, rows: [] };
    }
    // Taken before anything runs: whatever happens next, they are not sent twice.
    const { begin, kept } = this.names;
    this.names.begin = null;
    this.names.kept = [];
    const ends = TRANSACTION_ENDS.test(statement);
    const rollsBack = ends && ROLLS_BACK.test(statement);
    if (ends) this.names.inTransaction = false;
    // A transaction that sent nothing ends without a word (its kept writes go with a ROLLBACK, unsent).
    if (begin && ends && (kept.length === 0 || rollsBack)) return { ...NOTHING_SENT, rows: [] };
    const batch: Statement[] = [...(begin ?? [])];
    let [text, values] = [statement, parameters];
    // Several commands in one text (a claim's turn: SAVEPOINT; SET LOCAL; …) go only as a simple
    // query, which no batch can hold: what waits goes first, the BEGIN joined to it when alone.
    if (values.length === 0 && text.includes(';') && batch.length + kept.length > 0) {
      if (kept.length === 0) return this.execute<R>([...batch.map((s) => s.text), text].join('; '), [], true);
      if (!rollsBack) await this.executeBatch([...batch, alone(kept)]);
      return this.execute<R>(text, values, true);
    }
    if (kept.length > 0 && !rollsBack) {
      if (!ends && mayCarry(text) && !touchesAny(kept, tablesOf(text))) ({ text, values } = carrying(kept, text, values));
      else batch.push(alone(kept));
    }
    if (batch.length === 0) return this.execute<R>(text, values, true);
    batch.push({ text, values });
    return this.executeBatch<R>(batch);
  }

  /** A deferred write (deferred-writes.ts): kept for the next statement inside a transaction, run at once outside one. */
  private async keep<R>(text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    const write = keptWrite(text, values);
    if (!this.names.inTransaction) return this.run<R>(write.text, values);
    const kept = this.names.kept;
    if (kept.length >= MAX_KEPT || touchesAny(kept, write.tables, write.row)) {
      this.names.kept = [];
      await this.sendAlone(kept);
    }
    this.names.kept.push(write);
    return { command: 'INSERT', rowCount: 0, rows: [] };
  }

  /** Kept writes sent before the write that could not wait with them, in one statement of their own (after a held BEGIN). */
  private async sendAlone(kept: readonly KeptWrite[]): Promise<void> {
    const { begin } = this.names;
    this.names.begin = null;
    const { text, values } = alone(kept);
    if (begin) await this.executeBatch([...begin, { text, values }]);
    else await this.execute(text, values, false);
  }

  /**
   * Statements of a transaction in one round trip (statement-batch.ts); the last one's result. Every
   * text takes a name, parameters or not: a batch is extended-protocol, and the BEGIN, the reset lock
   * and the COMMIT are then parsed once per connection too.
   */
  private async executeBatch<R>(batch: readonly Statement[]): Promise<PostgresQueryResult<R>> {
    const statements: BatchStatement[] = batch.map((s) => ({ ...s, name: this.nameOf(s.text) }));
    let results: pg.QueryResult[];
    try {
      results = await sendBatch(this.client, statements, this.types);
    } catch (error) {
      // Always inside a transaction, which has failed: its statements' plans are made afresh next time.
      if (sqlState(error) === STALE_PLAN)
        for (const s of statements) if (s.name !== undefined && this.names.byText.get(s.text) === s.name) this.names.byText.delete(s.text);
      throw error;
    }
    const last = results.at(-1);
    return { command: COMMANDS.find((c) => c === last?.command) ?? 'SELECT', rowCount: last?.rowCount ?? 0, rows: last?.rows ?? [] };
  }

  private async execute<R>(text: string, values: unknown[], mayRetry: boolean): Promise<PostgresQueryResult<R>> {
    const name = values.length > 0 ? this.nameOf(text) : undefined;
    try {
      const result = name === undefined ? await this.client.query(text, values) : await this.client.query({ name, text, values });
      return { command: COMMANDS.find((c) => c === result.command) ?? 'SELECT', rowCount: result.rowCount ?? 0, rows: result.rows };
    } catch (error) {
      if (name === undefined || sqlState(error) !== STALE_PLAN || this.names.byText.get(text) !== name) throw error;
      // "cached plan must not change result type": a table's columns changed since the plan was made
      // (another svc's migration). The name is retired and the statement planned afresh: at once
      // when it ran on its own; inside a transaction the transaction has failed, and only its next
      // statements get the new plan.
      this.names.byText.delete(text);
      if (!mayRetry || this.names.inTransaction) throw error;
      return this.execute<R>(text, values, false);
    }
  }

  private nameOf(text: string): string | undefined {
    const { byText } = this.names;
    const name = byText.get(text);
    if (name !== undefined || byText.size >= MAX_NAMED) return name;
    const fresh = `svc_${this.names.given++}`;
    byText.set(text, fresh);
    return fresh;
  }
}
