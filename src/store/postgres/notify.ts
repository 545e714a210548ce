import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import { errorMessage } from '../../domain/caught.js';
import { Backoff } from '../backoff.js';
import type { Change, ChangeData, Changes, ChangeTopic } from '../changes.js';
import type { PgHandle } from './handle.js';

/** The one channel every replica of a database listens on; the topic is in the payload. */
export const CHANNEL = 'svc_changes';
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more: ours are ids, far below; refused loudly, never cut. */
const MAX_PAYLOAD = 7900;

interface Message {
  /** The sending process's instance id: a replica does not react to what it said itself. */
  p: string;
  t: ChangeTopic;
  d: ChangeData;
}

/**
 * What goes on the channel: the message as JSON text, and its signature. Any role that may connect
 * can NOTIFY on svc's channel; a notification svc did not sign is ignored (CONTRACT §12: one forged
 * `journal` notification made every replica re-send old entries to its live viewers).
 */
interface Wire {
  m: string;
  s: string;
}

/** Who sends: this process's instance id, and the database's notify key (migrations/0007-notify-key.ts). */
export interface Sender {
  instance: string;
  key: string;
}

/**
 * The signature of `message`: SHA-256 over the key, the message and the key again (no length
 * extension: the key closes it), hex. The same in SQL (notifyExpression), PostgreSQL's sha256().
 */
function signature(key: string, message: string): string {
  return createHash('sha256')
    .update(key + message + key)
    .digest('hex');
}

/** The database's notify key: made by the first replica (a random one), read by the others. */
export async function notifyKey(handle: PgHandle): Promise<string> {
  await sql`INSERT INTO notify_key (key) VALUES (${randomBytes(32).toString('hex')}) ON CONFLICT DO NOTHING`.execute(handle);
  const { rows } = await sql<{ key: string }>`SELECT key FROM notify_key`.execute(handle);
  const key = rows[0]?.key;
  if (!key) throw new Error('svc bug: no notify key after storing one');
  return key;
}

/**
 * The topics whose changes replace what every replica caches (the clock, faults, chaos, keys, the
 * tenants' rows of tenant-cache.ts): each such change also replaces the sandbox's version (`meta`),
 * in the same transaction, which a replica reads before it serves a request (server/freshness.ts).
 * The notification only wakes.
 */
const CACHED: ReadonlySet<ChangeTopic> = new Set(['clock', 'faults', 'chaos', 'keys', 'tenants']);

/** The `meta` entry every change of a cached topic replaces: a fresh random value, never a count a restore could bring back. */
const SANDBOX_VERSION = 'sandbox_version';

/**
 * `SELECT pg_notify(…)` on `handle`: inside a transaction, PostgreSQL delivers it only if that
 * transaction commits (and after it did, so a listener reading the store sees the change). A cached
 * topic replaces the sandbox's version in the same statement.
 */
export async function publishOn(handle: PgHandle, sender: Sender, topic: ChangeTopic, data: ChangeData = {}): Promise<void> {
  const message = JSON.stringify({ p: sender.instance, t: topic, d: data } satisfies Message);
  const payload = JSON.stringify({ m: message, s: signature(sender.key, message) } satisfies Wire);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD) throw new RangeError(`a ${topic} change notification of ${payload.length} bytes is too large`);
  if (!CACHED.has(topic)) {
    await sql`SELECT pg_notify(${CHANNEL}, ${payload})`.execute(handle);
    return;
  }
  await sql`WITH version AS (
      INSERT INTO meta (key, value) VALUES (${SANDBOX_VERSION}, to_json(gen_random_uuid()::text)::text)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value)
    SELECT pg_notify(${CHANNEL}, ${payload})`.execute(handle);
}

/** The sandbox's version (see CACHED), or null before any change of a cached topic. */
export async function sandboxVersion(handle: PgHandle): Promise<string | null> {
  const row = await handle.selectFrom('meta').select('value').where('key', '=', SANDBOX_VERSION).executeTakeFirst();
  return row?.value ?? null;
}

/**
 * publishOn's NOTIFY as an expression of a statement that computes the change's data itself (from
 * rows it just wrote, say): the write and its notification in one round trip. The same payload.
 */
export function notifyExpression(sender: Sender, topic: ChangeTopic, data: RawBuilder<unknown>): RawBuilder<unknown> {
  const message = sql`json_build_object('p', ${sender.instance}::text, 't', ${topic}::text, 'd', ${data})::text`;
  const signed = sql`encode(sha256(convert_to(${sender.key}::text || ${message} || ${sender.key}::text, 'UTF8')), 'hex')`;
  return sql`pg_notify(${CHANNEL}, json_build_object('m', ${message}, 's', ${signed})::text)`;
}

export interface ChangeChannelOptions {
  url: string;
  /** The database's notify key: what is not signed with it is not heard. */
  key: string;
  /** Told when the channel's connection is lost (it reconnects by itself) and when it is back. */
  onWarning?: (message: string) => void;
}

/**
 * One dedicated connection per emulator LISTENing on CHANNEL (a pooled one would be handed to other
 * work). When the server goes away (a restart), it reconnects by itself, LISTENs again, then tells
 * every subscriber to reload: notifications sent while it was away are lost, not queued.
 */
export class ChangeChannel implements Changes {
  readonly instance = randomUUID();
  private client: pg.Client | null = null;
  private readonly subscribers = new Map<ChangeTopic, Set<(change: Change) => void>>();
  private readonly backoff = new Backoff(100, 2000);
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: ChangeChannelOptions) {}

  /** The first connection: awaited by the store's open, so a replica hears every change made after it started. */
  async open(): Promise<void> {
    await this.connect();
  }

  subscribe(topic: ChangeTopic, fn: (change: Change) => void): () => void {
    let set = this.subscribers.get(topic);
    if (!set) this.subscribers.set(topic, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, application_name: 'svc-changes', connectionTimeoutMillis: 5000 });
    // Lost once, whichever of 'error' and 'end' comes first (a server shutdown gives both).
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => {});
      if (this.closed) return;
      this.options.onWarning?.(`the change channel lost its connection${error ? ` (${error.message})` : ''}; reconnecting`);
      this.reconnectLater();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => this.deliver(message.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      lost = true;
      client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
  }

  private reconnectLater(): void {
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.reconnect(), this.backoff.next());
    // A replica waiting for its database must not keep a test process alive.
    this.retry.unref();
  }

  private async reconnect(): Promise<void> {
    if (this.closed) return;
    try {
      await this.connect();
    } catch (error) {
      if (this.closed) return;
      this.options.onWarning?.(`the change channel cannot reconnect yet (${errorMessage(error)})`);
      this.reconnectLater();
      return;
    }
    this.backoff.reset();
    this.options.onWarning?.('the change channel is connected again; reloading shared state');
    // What other replicas changed while this one was deaf: every cache reloads.
    for (const set of this.subscribers.values()) for (const fn of [...set]) this.call(fn, { data: {}, reconnected: true });
  }

  private deliver(payload: string | undefined): void {
    let wire: Message;
    try {
      const signed: unknown = JSON.parse(payload ?? '');
      // Not ours (someone else NOTIFYing on the channel, unsigned or signed with another key): ignored.
      if (!isWire(signed) || signed.s !== signature(this.options.key, signed.m)) return;
      wire = JSON.parse(signed.m);
    } catch {
      return;
    }
    if (wire?.p === this.instance || typeof wire?.t !== 'string') return;
    const set = this.subscribers.get(wire.t);
    if (!set) return;
    const data = typeof wire.d === 'object' && wire.d !== null ? wire.d : {};
    for (const fn of [...set]) this.call(fn, { data, reconnected: false });
  }

  /** A subscriber's mistake is reported, never thrown into pg's event emitter (it would end the connection). */
  private call(fn: (change: Change) => void, change: Change): void {
    try {
      fn(change);
    } catch (error) {
      this.options.onWarning?.(`a change subscriber failed: ${errorMessage(error)}`);
    }
  }
}

function isWire(value: unknown): value is Wire {
  return typeof value === 'object' && value !== null && 'm' in value && 's' in value && typeof value.m === 'string' && typeof value.s === 'string';
}
