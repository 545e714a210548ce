// The floor of #13 (a fresh process: import, startEmulator on an in-memory database, one create,
// stop): dev.cjs's work, plus node:crypto's random key and one request to itself over node:http,
// then everything closed. What that process cannot do without, and nothing else.
const Database = require('better-sqlite3');
const crypto = require('node:crypto');
const http = require('node:http');

const db = new Database(':memory:');
db.exec('CREATE TABLE invoices (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
const key = `sk_test_${crypto.randomBytes(24).toString('base64url')}`;
const insert = db.prepare('INSERT INTO invoices (id, body) VALUES (?, ?)');
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const id = crypto.randomUUID();
    insert.run(id, body);
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, ...JSON.parse(body) }));
  });
});
server.listen(0, '127.0.0.1', () => {
  const body = JSON.stringify({ amount: '25.00' });
  const req = http.request(
    `http://127.0.0.1:${server.address().port}/v1/partner/invoices`,
    {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    },
    (res) => {
      res.resume();
      res.on('end', () => {
        server.close();
        db.close();
        process.stdout.write(`${res.statusCode}\n`);
      });
    },
  );
  req.end(body);
});
