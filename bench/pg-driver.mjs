// Which PostgreSQL driver the store uses (issue 27), chosen by measurement: `node bench/pg-driver.mjs`.
// Against one throwaway server (test/helpers/postgres-server.ts, the tests' own), each driver inserts
// 5,000 rows in single-statement transactions from 8 concurrent clients, then does 5,000 point reads,
// through kysely where a dialect exists and raw beside it with prepared statements (the store runs SQL compiled at build time, as
// SQLite's does, so the raw rows are what it would pay). Figures are ratios to `pg` through kysely's
// PostgresDialect, measured in this run; rounds alternate the drivers and the best round counts, so a
// neighbour's burst of load hurts one round of one driver, not the comparison. Also times the cluster
// itself: initdb + start, and CREATE DATABASE … TEMPLATE (what a test pays per database).
//   --rounds N (default 5)   --rows N (default 5000)   --clients N (default 8)
// The drivers need to be installed (devDependencies while this was decided: pg, postgres,
// kysely-postgres-js); a missing one is skipped, saying so.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// The server helper is TypeScript: run this file under vite-node (vitest's), which imports it as is.
if (!import.meta.env) {
  const viteNode = path.join(here, '..', 'node_modules', 'vite-node', 'vite-node.mjs');
  const child = spawnSync(process.execPath, [viteNode, fileURLToPath(import.meta.url), '--', ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const args = process.argv.slice(2);
const flag = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const ROUNDS = flag('--rounds', 5);
const ROWS = flag('--rows', 5000);
const CLIENTS = flag('--clients', 8);

const { startPostgresServer } = await import('../test/helpers/postgres-server.ts');
const { Kysely, PostgresDialect, sql } = await import('kysely');
const optional = (name) =>
  import(name).catch(() => {
    console.log(`(${name} is not installed: its rows are skipped)`);
    return null;
  });
const pg = await optional('pg');
const postgres = await optional('postgres');
const postgresJsDialect = await optional('kysely-postgres-js');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-pg-'));
let t = performance.now();
const server = await startPostgresServer({ dir, searchableFrom: dir });
const clusterMs = performance.now() - t;
try {
  const createMs = [];
  for (let i = 0; i < 10; i++) {
    t = performance.now();
    await server.createDatabase();
    createMs.push(performance.now() - t);
  }
  console.log(
    `cluster: initdb + start ${clusterMs.toFixed(0)} ms; CREATE DATABASE … TEMPLATE median ${median(createMs).toFixed(0)} ms (of 10, psql spawn included)`,
  );

  // Each driver: open(url) → { insert(i), read(i), close() }.
  const drivers = {};
  if (pg) {
    drivers['pg + kysely PostgresDialect'] = (url) => {
      const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.default.Pool({ connectionString: url, max: CLIENTS }) }) });
      return {
        insert: (i) => db.transaction().execute((trx) => trx.insertInto('items').values(row(i)).execute()),
        read: (i) => db.selectFrom('items').selectAll().where('id', '=', id(i)).executeTakeFirstOrThrow(),
        close: () => db.destroy(),
      };
    };
    drivers['pg raw'] = (url) => {
      const pool = new pg.default.Pool({ connectionString: url, max: CLIENTS });
      return {
        async insert(i) {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            const r = row(i);
            await client.query({
              name: 'insert',
              text: 'INSERT INTO items (id, amount, created_at, payload) VALUES ($1, $2, $3, $4)',
              values: [r.id, r.amount, r.created_at, r.payload],
            });
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        },
        read: (i) => pool.query({ name: 'read', text: 'SELECT * FROM items WHERE id = $1', values: [id(i)] }),
        close: () => pool.end(),
      };
    };
  }
  if (postgres && postgresJsDialect) {
    drivers['postgres + kysely-postgres-js'] = (url) => {
      const db = new Kysely({ dialect: new postgresJsDialect.PostgresJSDialect({ postgres: postgres.default(url, { max: CLIENTS }) }) });
      return {
        insert: (i) => db.transaction().execute((trx) => trx.insertInto('items').values(row(i)).execute()),
        read: (i) => db.selectFrom('items').selectAll().where('id', '=', id(i)).executeTakeFirstOrThrow(),
        close: () => db.destroy(),
      };
    };
  }
  if (postgres) {
    drivers['postgres raw'] = (url) => {
      const q = postgres.default(url, { max: CLIENTS });
      return {
        insert: (i) => q.begin((tx) => tx`INSERT INTO items ${tx(row(i))}`),
        read: (i) => q`SELECT * FROM items WHERE id = ${id(i)}`,
        close: () => q.end(),
      };
    };
  }

  /** Per driver, the best round: noise from the other processes on the machine only ever slows a round. */
  const best = {};
  for (let round = 1; round <= ROUNDS; round++) {
    // Each round starts with the next driver: none is always first (cold) or always last.
    const order = Object.entries(drivers);
    for (const [name, open] of [...order.slice((round - 1) % order.length), ...order.slice(0, (round - 1) % order.length)]) {
      const url = await server.createDatabase();
      const setup = new Kysely({ dialect: new PostgresDialect({ pool: new pg.default.Pool({ connectionString: url, max: 1 }) }) });
      // The shape of an invoice row where it matters to a driver: text money, bigint ms times.
      await sql`CREATE TABLE items (id text PRIMARY KEY, amount text NOT NULL, created_at bigint NOT NULL, payload text NOT NULL)`.execute(setup);
      await setup.destroy();
      const driver = open(url);
      await concurrently(200, (i) => driver.insert(ROWS + i)); // warm-up: connections, prepared plans
      const writes = await rate(ROWS, (i) => driver.insert(i));
      await concurrently(200, (i) => driver.read(i));
      const reads = await rate(ROWS, (i) => driver.read((i * 7919) % ROWS));
      await driver.close();
      best[name] = { writes: Math.max(best[name]?.writes ?? 0, writes), reads: Math.max(best[name]?.reads ?? 0, reads) };
      console.log(`round ${round} ${name}: ${writes.toFixed(0)} writes/s, ${reads.toFixed(0)} reads/s`);
    }
  }
  const base = best['pg + kysely PostgresDialect'];
  console.log(`\nbest of ${ROUNDS} rounds, ${ROWS} rows, ${CLIENTS} clients; ratio to pg + kysely PostgresDialect`);
  console.log('| driver | writes/s | ratio | reads/s | ratio |\n|---|---|---|---|---|');
  for (const [name, r] of Object.entries(best)) {
    console.log(
      `| ${name} | ${r.writes.toFixed(0)} | ${(r.writes / base.writes).toFixed(2)}× | ${r.reads.toFixed(0)} | ${(r.reads / base.reads).toFixed(2)}× |`,
    );
  }
} finally {
  await server.stop();
}

function id(i) {
  return `inv_${String(i).padStart(8, '0')}`;
}
function row(i) {
  return { id: id(i), amount: '10.000001', created_at: 1_700_000_000_000 + i, payload: JSON.stringify({ i, status: 'CREATED', addresses: ['0x00'] }) };
}
/** Runs `task(0 … count-1)` from CLIENTS concurrent loops; resolves when all are done. */
async function concurrently(count, task) {
  let next = 0;
  const loop = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
}
async function rate(count, task) {
  const start = performance.now();
  await concurrently(count, task);
  return count / ((performance.now() - start) / 1000);
}
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
