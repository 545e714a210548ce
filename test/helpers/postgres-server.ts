/**
 * A throwaway PostgreSQL cluster in a folder of its own: initdb, start on a free port of 127.0.0.1,
 * stop, restart, kill client connections. No vitest here, so that a test file (test/helpers/postgres.ts)
 * and a globalSetup (test/helpers/postgres-global.ts) start it the same way.
 *
 * PostgreSQL refuses to run as root, and CI runs as root: then every server command runs as the
 * unprivileged user `svc-pg` (scripts/postgres-user.sh makes it) through runuser. As anyone else it
 * runs as the current user. Admin work (CREATE DATABASE, pg_terminate_backend) goes through psql on
 * the cluster's Unix socket with trust auth; applications get a URL for TCP on 127.0.0.1 with a
 * password (scram-sha-256), as a real deployment would, so that tests can check it is never shown.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { postgresBin, prepareFolderFor, SERVER_USER } from './postgres-tools.js';

const run = promisify(execFile);

export interface PostgresServerOptions {
  /** The (empty or missing) folder the cluster lives in; removed by stop(). */
  dir: string;
  /** The highest folder above `dir` that may be made searchable for the server's user (the tests' root). */
  searchableFrom: string;
}

export interface PostgresServer {
  /** `postgres://svc:<password>@127.0.0.1:<port>/svc`: the cluster's first database. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly dir: string;
  /** The URL of another database of this cluster. */
  urlFor(database: string): string;
  /** A new database (a copy of `template`, default template1) with a fresh name; resolves to its URL. */
  createDatabase(options?: { name?: string; template?: string }): Promise<string>;
  /** Runs SQL as the superuser through psql on the socket; resolves to its unaligned output. */
  psql(sqlText: string, database?: string): Promise<string>;
  /** Ends every client connection (of one database, or all), as a failover or an admin would; the count. */
  terminateBackends(database?: string): Promise<number>;
  /**
   * Stops the server, keeping its data: the database "goes away". `fast` (the default) ends sessions
   * cleanly; `immediate` is a crash (no shutdown checkpoint; recovery at the next start).
   */
  stopServer(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts a stopped server again on the same port, and waits until it accepts connections. */
  startServer(): Promise<void>;
  /** stopServer() then startServer(). */
  restart(): Promise<void>;
  /** Stops the server and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** pg_ctl waits for readiness itself (it polls the postmaster): this is only its ceiling. */
const READY_CEILING_S = 120;
const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function startPostgresServer(options: PostgresServerOptions): Promise<PostgresServer> {
  const dir = path.resolve(options.dir);
  fs.mkdirSync(dir, { recursive: true });
  // A Unix socket's path has at most 107 bytes: a long test file's folder gets its socket in a short
  // folder of its own directly under the tests' root instead.
  const socketDir = `${dir}/.s.PGSQL.65535`.length <= 100 ? dir : fs.mkdtempSync(path.join(options.searchableFrom, 'pgs-'));
  try {
    return await launch(options, dir, socketDir);
  } catch (error) {
    // A start that failed half-way (after the server came up, say) leaves no server and no folder.
    stopImmediately(path.join(dir, 'data'));
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(socketDir, { recursive: true, force: true });
    throw error;
  }
}

const asRoot = process.getuid?.() === 0;

/** `pg_ctl stop -m immediate`, synchronously (it runs in an 'exit' handler); a server not running is no error. */
function stopImmediately(data: string): void {
  const args = ['stop', '-m', 'immediate', '-D', data];
  if (asRoot) spawnSync('runuser', ['-u', SERVER_USER, '--', postgresBin('pg_ctl'), ...args], { stdio: 'ignore' });
  else spawnSync(postgresBin('pg_ctl'), args, { stdio: 'ignore' });
}

async function launch(options: PostgresServerOptions, dir: string, socketDir: string): Promise<PostgresServer> {
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const user = 'svc';
  const password = randomBytes(12).toString('hex');
  await prepareFolderFor(dir, options.searchableFrom, asRoot);
  if (socketDir !== dir) await prepareFolderFor(socketDir, options.searchableFrom, asRoot);

  // Server commands run as the unprivileged user when we are root.
  const serverCommand = async (tool: string, args: string[]) => {
    const bin = postgresBin(tool);
    const [file, argv] = asRoot ? ['runuser', ['-u', SERVER_USER, '--', bin, ...args]] : [bin, args];
    try {
      return await run(file, argv, { cwd: dir, maxBuffer: 16 << 20 });
    } catch (error) {
      const tail = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').slice(-15).join('\n') : '';
      throw new Error(`${tool} ${args[0] ?? ''} failed: ${(error as Error).message.trim()}${tail ? `\n--- ${log} ---\n${tail}` : ''}`);
    }
  };

  const pwfile = path.join(dir, 'pwfile');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (asRoot) spawnSync('chown', [SERVER_USER, pwfile]);
  // --no-sync and fsync off: a test cluster need not survive a power cut, and syncing is most of initdb's time.
  await serverCommand('initdb', [
    '-D',
    data,
    '-U',
    user,
    `--pwfile=${pwfile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  fs.rmSync(pwfile);

  let port = 0;
  const settings = () =>
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${socketDir}'`,
      // fsync off: only an OS crash could lose data, which a test never survives anyway. Commits
      // stay synchronous: a test that kills the server must find every acknowledged write after it.
      'fsync = off',
      'full_page_writes = off',
      // Small: a run may have one server per test file up at once.
      'shared_buffers = 32MB',
      'max_connections = 100',
    ].join('\n');
  let running = false;
  const startServer = async () => {
    await serverCommand('pg_ctl', ['start', '-w', '-t', String(READY_CEILING_S), '-D', data, '-l', log]);
    running = true;
  };

  // A free port can be taken by someone else between our probe and the server's bind: try again.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    // postgresql.auto.conf is read last and survives restarts: the port stays the same across them.
    fs.writeFileSync(path.join(data, 'postgresql.auto.conf'), `${settings()}\n`);
    try {
      await startServer();
      break;
    } catch (error) {
      if (attempt >= 5 || !/could not bind|Address already in use|could not create any TCP/i.test((error as Error).message)) throw error;
    }
  }

  // A vitest worker that dies without stop() must not leave a postgres behind.
  const onExit = () => {
    if (running) stopImmediately(data);
  };
  process.once('exit', onExit);

  const host = '127.0.0.1';
  const urlFor = (database: string) => `postgres://${user}:${password}@${host}:${port}/${database}`;
  // Admin work connects to the `postgres` database, which nothing under test uses.
  const psql = async (sqlText: string, database = 'postgres') => {
    const { stdout } = await run(postgresBin('psql'), [
      '-X',
      '-q',
      '-At',
      '-v',
      'ON_ERROR_STOP=1',
      '-h',
      socketDir,
      '-p',
      String(port),
      '-U',
      user,
      '-d',
      database,
      '-c',
      sqlText,
    ]);
    return stdout.trim();
  };
  const stopServer = async (mode: 'fast' | 'immediate' = 'fast') => {
    await serverCommand('pg_ctl', ['stop', '-m', mode, '-w', '-t', String(READY_CEILING_S), '-D', data]);
    running = false;
  };
  let created = 0;
  let stopped = false;
  // The database of `url`, named after the user as libpq's default is.
  await psql(`CREATE DATABASE ${user}`);

  return {
    url: urlFor(user),
    host,
    port,
    user,
    password,
    dir,
    urlFor,
    psql,
    async createDatabase({ name, template = 'template1' } = {}) {
      const db = name ?? `t${process.pid}_${++created}`;
      if (!NAME.test(db) || !NAME.test(template)) throw new Error(`createDatabase: names are [a-z0-9_], got ${db} / ${template}`);
      // The default strategy (WAL_LOG): measured 54 ms against FILE_COPY's 199 ms, which checkpoints twice.
      await psql(`CREATE DATABASE ${db} TEMPLATE ${template}`);
      return urlFor(db);
    },
    async terminateBackends(database) {
      if (database !== undefined && !NAME.test(database)) throw new Error(`terminateBackends: bad database name ${database}`);
      const where = database ? ` AND datname = '${database}'` : '';
      const out = await psql(
        `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()${where}`,
      );
      return Number(out);
    },
    stopServer,
    startServer,
    async restart() {
      await stopServer();
      await startServer();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (running) await stopServer();
      process.removeListener('exit', onExit);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
