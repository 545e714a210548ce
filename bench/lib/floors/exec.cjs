// The floor of `svc exec -- node -e 0` (#16): dev.cjs's work (better-sqlite3, an in-memory database
// with one table, an HTTP server listening), then the command as a child process with the server's
// URL in its environment, waited for, and everything closed. What that process cannot do without.
const Database = require('better-sqlite3');
const http = require('node:http');
const { spawn } = require('node:child_process');

const db = new Database(':memory:');
db.exec('CREATE TABLE invoices (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
const server = http.createServer((_req, res) => res.end('{}'));
server.listen(0, '127.0.0.1', () => {
  const [command, ...args] = process.argv.slice(2);
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, SVC_BASE_URL: `http://127.0.0.1:${server.address().port}` } });
  child.on('exit', (code) => {
    server.close();
    db.close();
    process.exitCode = code ?? 1;
  });
});
