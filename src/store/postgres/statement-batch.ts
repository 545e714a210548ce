import pg from 'pg';

/**
 * Several statements of one connection in ONE round trip: each statement's Parse (the first time a
 * name is used), Bind, Describe and Execute, then a single Sync, written in one socket write. pg
 * sends a Sync after every statement and waits for its answer before the next; a transaction's
 * BEGIN, its statements and its COMMIT were a round trip each, and on a machine where the
 * emulator and the server share the cores every round trip costs both sides a socket write and a
 * wake-up (issue 27, docs/performance.md "The PostgreSQL store").
 *
 * The protocol makes the batch behave like the statements sent one by one, except on an error: the
 * server skips what follows the failing statement up to the Sync. Inside a transaction block (the
 * batch holds BEGIN, or one was sent before) the block is then aborted and stays open until the
 * caller's ROLLBACK, as after a single failing statement; outside one, the batch was one implicit
 * transaction and is rolled back whole. Either way the caller gets the first error.
 *
 * A pg "submittable" (the extension point pg-cursor uses): the client hands it the connection and
 * routes the server's answers to it until its ReadyForQuery.
 */
export interface BatchStatement {
  text: string;
  values: readonly unknown[];
  /** A prepared statement's name on this connection (named-statements.ts), or undefined for the unnamed one. */
  name: string | undefined;
}

/** Text-format parsers by type id: the pool's (connect.ts: int8 as a number), else pg's own. */
type Types = Pick<pg.CustomTypesConfig, 'getTypeParser'>;

/** Runs `statements` in one round trip on `client` (idle: pg queues it otherwise); one result each, in order. */
export function sendBatch(client: pg.ClientBase, statements: readonly BatchStatement[], types: Types = pg.types): Promise<pg.QueryResult[]> {
  return new Promise((resolve, reject) => {
    client.query(new Batch(statements, types, (error, results) => (error ? reject(error) : resolve(results))));
  });
}

/** pg's own mapping of a parameter to the wire (arrays, dates, JSON), as its queries use it. */
const prepareValue = valueMapperOf(pg);

/** A command tag: `INSERT 0 3`, `SELECT 2`, `COMMIT`. */
const TAG = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

class Batch implements pg.Submittable {
  private readonly results: pg.QueryResult[];
  /** The current statement's columns and their parsers (its RowDescription). */
  private columns: { name: string; parse: (value: string) => unknown }[] = [];
  /** A row pg's parsers refused (an int8 beyond 2^53): the batch fails with it once answered. */
  private refused: Error | undefined;
  /** Which statements sent a Parse (a named one already parsed on the connection does not). */
  private readonly parses: boolean[] = [];
  /** The statement the server answers now: answers come in the order the statements went. */
  private index = 0;
  private done = false;
  private connection: pg.Connection | undefined;

  constructor(
    private readonly statements: readonly BatchStatement[],
    private readonly types: Types,
    private readonly callback: (error: Error | null, results: pg.QueryResult[]) => void,
  ) {
    this.results = statements.map(() => ({ command: '', rowCount: null, oid: 0, fields: [], rows: [] }));
  }

  /**
   * The current statement's name while its Parse is answered: pg's client records a ParseComplete
   * for `activeQuery.name` (so that the name is parsed once per connection) and forgets a failed
   * statement's name the same way.
   */
  get name(): string | undefined {
    return this.parses[this.index] ? this.statements[this.index]?.name : undefined;
  }

  get text(): string | undefined {
    return this.statements[this.index]?.text;
  }

  submit(connection: pg.Connection): Error | null {
    this.connection = connection;
    let values: (string | Buffer | null)[][];
    try {
      // Before anything is written: a value pg cannot send fails the batch with nothing sent.
      values = this.statements.map((s) => s.values.map(prepareValue));
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    const known = namesOf(connection);
    connection.stream.cork();
    try {
      this.statements.forEach((s, i) => {
        const name = s.name ?? '';
        const parse = s.name === undefined || (known.parsed[name] === undefined && known.submitted[name] === undefined);
        this.parses.push(parse);
        if (parse) {
          connection.parse({ name, text: s.text, types: [] }, false);
          if (s.name !== undefined) known.submitted[name] = s.text;
        }
        connection.bind({ portal: '', statement: name, values: values[i] }, false);
        connection.describe({ type: 'P', name: '' }, false);
        connection.execute({ portal: '' }, false);
      });
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
    return null;
  }

  handleRowDescription(msg: { fields: readonly pg.FieldDef[] }): void {
    this.columns = msg.fields.map((f) => ({ name: f.name, parse: this.types.getTypeParser(f.dataTypeID, 'text') }));
  }

  handleDataRow(msg: { fields: readonly (string | null)[] }): void {
    if (this.refused) return;
    const row: Record<string, unknown> = {};
    try {
      this.columns.forEach((column, i) => {
        const value = msg.fields[i];
        row[column.name] = value === null || value === undefined ? null : column.parse(value);
      });
    } catch (error) {
      // Not thrown here, inside pg's message handling: the batch fails with it once the server answered.
      this.refused = error instanceof Error ? error : new Error(String(error));
      return;
    }
    this.results[this.index]?.rows.push(row);
  }

  handleCommandComplete(msg: { text: string }): void {
    const result = this.results[this.index];
    const tag = TAG.exec(msg.text);
    if (result && tag) {
      result.command = tag[1]!;
      const count = tag[3] ?? tag[2];
      if (count !== undefined) result.rowCount = Number(count);
    }
    this.columns = [];
    this.index++;
  }

  handleEmptyQuery(): void {
    this.index++;
  }

  /**
   * The server's error (the statements after it were skipped), or the connection's loss. The names
   * of the skipped statements' Parses were never made: forgotten, so that their next use parses again.
   */
  handleError(error: Error): void {
    if (this.done) return;
    this.done = true;
    if (this.connection) {
      const known = namesOf(this.connection);
      for (let i = this.index + 1; i < this.statements.length; i++) {
        const name = this.statements[i]?.name;
        if (this.parses[i] && name !== undefined && known.parsed[name] === undefined) delete known.submitted[name];
      }
    }
    this.callback(error, []);
  }

  handleReadyForQuery(): void {
    if (this.done) return;
    this.done = true;
    if (this.refused) this.callback(this.refused, []);
    else this.callback(null, this.results);
  }

  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}

/** pg's bookkeeping of the names a connection has parsed or sent a Parse for (name → text). */
function namesOf(connection: pg.Connection): { parsed: Record<string, string | undefined>; submitted: Record<string, string | undefined> } {
  const parsed: unknown = Reflect.get(connection, 'parsedStatements');
  const submitted: unknown = Reflect.get(connection, 'submittedNamedStatements');
  if (!isRecord(parsed) || !isRecord(submitted)) throw new Error('svc bug: this pg has no parsedStatements on its connection');
  return { parsed, submitted };
}

function isRecord(value: unknown): value is Record<string, string | undefined> {
  return typeof value === 'object' && value !== null;
}

function valueMapperOf(module: object): (value: unknown) => string | Buffer | null {
  const utils: unknown = Reflect.get(module, 'utils');
  const map: unknown = typeof utils === 'object' && utils !== null ? Reflect.get(utils, 'prepareValue') : undefined;
  if (typeof map !== 'function') throw new Error('svc bug: this pg has no utils.prepareValue');
  return (value) => {
    const mapped: unknown = map(value);
    if (mapped === null || mapped === undefined) return null;
    if (typeof mapped === 'string' || Buffer.isBuffer(mapped)) return mapped;
    throw new TypeError(`a parameter pg cannot send: ${typeof mapped}`);
  };
}
