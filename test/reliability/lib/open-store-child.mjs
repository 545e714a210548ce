/**
 * A child process for the migration-kill test: opens (and so migrates) a database with the built
 * `openStore`, counting every SQL statement that completes, and kills itself with SIGKILL right after
 * statement number `killAfter` (no kill when it is 0). With no kill it prints `{"statements":N,"firstWrite":W}`,
 * W being the number of statements before the first write transaction began (reads before it: the
 * checks of the file, which a kill cannot harm).
 *
 *   node open-store-child.mjs <dist folder> <database file> <killAfter>
 *
 * Killing from inside, between two statements, reaches every gap of a migration deterministically;
 * the test also kills real `svc dev` processes from outside, at moments SQLite itself is writing.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';

const [distDir, file, killAfterArg] = process.argv.slice(2);
const killAfter = Number(killAfterArg);
let statements = 0;
let firstWrite = null;
const completed = () => {
  statements += 1;
  if (statements === killAfter) process.kill(process.pid, 'SIGKILL');
};

const probe = new BetterSqlite3(':memory:');
const statementProto = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();
for (const method of ['run', 'get', 'all']) {
  const original = statementProto[method];
  statementProto[method] = function counted(...args) {
    const result = original.apply(this, args);
    completed();
    return result;
  };
}
const exec = BetterSqlite3.prototype.exec;
BetterSqlite3.prototype.exec = function counted(sql) {
  if (firstWrite === null && /^BEGIN/i.test(sql)) firstWrite = statements;
  const result = exec.call(this, sql);
  completed();
  return result;
};

const { openStore } = await import(pathToFileURL(path.join(distDir, 'store', 'store.js')).href);
const store = await openStore({ file });
store.close();
process.stdout.write(`${JSON.stringify({ statements, firstWrite: firstWrite ?? 0 })}\n`);
