/**
 * A real cluster for the reliability suite (CONTRACT §12, issue 28): `svc dev --json --port 0
 * --database <url>` processes (spawned bin/svc.js, so that SIGKILL is real), each in a folder of its
 * own (its .svc/dev.json), on one PostgreSQL database, with the round-robin proxy in front as the
 * load balancer. Clients talk to `cluster.client` (the proxy) unless a test is about one replica.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type LiveCli, spawnCli } from '../../helpers/cli.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../../helpers/round-robin-proxy.js';
import type { ReadyEvent } from './dev-process.js';
import { PlainClient } from './plain-client.js';

export interface Replica {
  readonly n: number;
  readonly cli: LiveCli;
  readonly ready: ReadyEvent;
  readonly url: string;
  /** Talks to this replica alone, not through the proxy. */
  readonly client: PlainClient;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  /** Delivery ids this replica reported `delivery.sent` for and no `delivery.result` (its stdout, NDJSON). */
  unfinishedDeliveries(): string[];
}

export interface Cluster {
  readonly replicas: Replica[];
  readonly proxy: RoundRobinProxy;
  /** Through the proxy. */
  readonly client: PlainClient;
  readonly keys: ReadyEvent['test'];
  /** SQL on the cluster's database (a connection of the test's own); rows as objects. */
  query(sqlText: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Takes a replica out of the proxy's turns, as a balancer's failing health check does. */
  drop(replica: Replica): void;
  stop(): Promise<void>;
}

/**
 * Starts `count` replicas on `database` at once (migrations run once, under their lock) and a proxy
 * in front. `envOf`: environment variables of replica `n`'s process, beside the test's.
 */
export async function startCluster(database: string, count: number, envOf: (n: number) => NodeJS.ProcessEnv = () => ({})): Promise<Cluster> {
  const replicas: Replica[] = [];
  const started = await Promise.allSettled(Array.from({ length: count }, (_, n) => startReplica(database, n, envOf(n))));
  for (const s of started) if (s.status === 'fulfilled') replicas.push(s.value);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(replicas.map((r) => r.kill()));
    throw (failed as PromiseRejectedResult).reason;
  }
  const proxy = await startRoundRobinProxy(replicas.map((r) => r.url));
  const client = new PlainClient(proxy.url);
  // The test's own connection, reconnected after a server restart (test e): it only reads.
  let db: pg.Client | undefined;
  const connect = async () => {
    const c = new pg.Client({ connectionString: database });
    c.on('error', () => {
      if (db === c) db = undefined;
    });
    await c.connect();
    return c;
  };
  return {
    replicas,
    proxy,
    client,
    keys: replicas[0]!.ready.test,
    async query(sqlText, params = []) {
      db ??= await connect();
      return (await db.query(sqlText, params)).rows as Record<string, unknown>[];
    },
    drop(replica) {
      const at = proxy.upstreams.indexOf(replica.url);
      if (at !== -1) proxy.upstreams.splice(at, 1);
    },
    async stop() {
      await Promise.all(replicas.map((r) => r.kill()));
      await client.close();
      await proxy.stop();
      await db?.end().catch(() => undefined);
    },
  };
}

async function startReplica(database: string, n: number, env: NodeJS.ProcessEnv): Promise<Replica> {
  // Its own folder: each `svc dev` writes .svc/dev.json where it runs (TMPDIR is the test's folder).
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), `replica-${n}-`));
  const cli = spawnCli(['dev', '--json', '--port', '0', '--database', database], { cwd, env });
  let ready: ReadyEvent;
  try {
    ready = JSON.parse(await cli.waitForLine((l) => l.startsWith('{"type":"ready"'), 60_000)) as ReadyEvent;
  } catch (error) {
    await cli.stop('SIGKILL');
    throw error;
  }
  const client = new PlainClient(ready.baseUrl);
  return {
    n,
    cli,
    ready,
    url: ready.baseUrl,
    client,
    async kill() {
      await cli.stop('SIGKILL');
      await client.close();
    },
    unfinishedDeliveries() {
      const open = new Set<string>();
      for (const line of cli.lines) {
        // Field order is the emitter's: look for the type anywhere, then parse.
        if (!line.includes('"delivery.')) continue;
        const event = JSON.parse(line) as { type: string; deliveryId: string };
        if (event.type === 'delivery.sent') open.add(event.deliveryId);
        else open.delete(event.deliveryId);
      }
      return [...open];
    },
  };
}
