/**
 * A TCP relay in front of a PostgreSQL server that reads what clients send (the frontend protocol)
 * and counts round trips: each simple Query ('Q') and each Sync ('S', the end of an extended query),
 * with the SQL (a Sync's statements joined by `; `). The change channel's connection (application_name svc-changes) is left out. For the
 * round-trip tests (postgres-round-trips.test.ts); bench/lib/statement-probe.mjs does the same.
 */
import net from 'node:net';
import { afterAll } from 'vitest';

export interface PgRelay {
  /** `url` with its port replaced by the relay's. */
  url: string;
  /** The statements sent while `fn` ran, and until `settleMs` after (what it set off after answering). */
  count(fn: () => Promise<unknown>, settleMs?: number): Promise<string[]>;
}

export async function startPgRelay(url: string): Promise<PgRelay> {
  const target = new URL(url);
  let log: string[] | null = null;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    watch(client, (sql) => log?.push(sql));
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const relayed = new URL(url);
  relayed.port = String((server.address() as net.AddressInfo).port);
  return {
    url: relayed.href,
    count: async (fn, settleMs = 50) => {
      log = [];
      await fn();
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      const seen = log;
      log = null;
      return seen;
    },
  };
}

/** Calls `onTrip` with the SQL of each round trip `socket` sends; the startup packet has no type byte. */
function watch(socket: net.Socket, onTrip: (sql: string) => void): void {
  let buffer = Buffer.alloc(0);
  let started = false;
  let ours = true;
  let parsed = '';
  /** The statements bound since the last Sync. */
  let trip: string[] = [];
  /** This connection's named statements (store/postgres/named-statements.ts): name → text. */
  const prepared = new Map<string, string>();
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (!started) {
        if (buffer.length < 4 || buffer.length < buffer.readInt32BE(0)) return;
        const length = buffer.readInt32BE(0);
        const params = buffer.subarray(8, length).toString('utf8').split('\0');
        if (params[params.indexOf('application_name') + 1] === 'svc-changes') ours = false;
        buffer = buffer.subarray(length);
        started = true;
        continue;
      }
      if (buffer.length < 5 || buffer.length < 1 + buffer.readInt32BE(1)) return;
      const type = String.fromCharCode(buffer[0]!);
      const body = buffer.subarray(5, 1 + buffer.readInt32BE(1));
      buffer = buffer.subarray(1 + buffer.readInt32BE(1));
      if (!ours) continue;
      if (type === 'Q') onTrip(body.toString('utf8').replace(/\0$/, ''));
      if (type === 'P') {
        const [name = '', text = ''] = body.toString('utf8').split('\0');
        parsed = text;
        if (name) prepared.set(name, text);
      }
      // A prepared statement's later calls send no text: their Bind names it.
      if (type === 'B') {
        const name = body.toString('utf8').split('\0')[1];
        trip.push(name ? (prepared.get(name) ?? `(prepared ${name})`) : parsed);
      }
      // One Sync ends a round trip, which may hold several statements (store/postgres/statement-batch.ts).
      if (type === 'S') {
        onTrip(trip.join('; '));
        trip = [];
      }
    }
  });
}
