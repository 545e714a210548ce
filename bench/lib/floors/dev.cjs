// The floor of `svc dev --memory --port 0 --json` until ready (#12): what that process cannot do
// without, and nothing else. better-sqlite3 loaded, an in-memory database with one table, an HTTP
// server listening on a free port, one line printed. CommonJS, the cheapest way Node loads a script.
const Database = require('better-sqlite3');
const http = require('node:http');

const db = new Database(':memory:');
db.exec('CREATE TABLE invoices (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
const server = http.createServer((_req, res) => res.end('{}'));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ type: 'ready', baseUrl: `http://127.0.0.1:${server.address().port}` })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  db.close();
});
