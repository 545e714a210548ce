// A webhook receiver in its own process. Records, per request, the envelope's createdAt and the
// time it arrived, and answers 200 (or never, with --hang). IPC: {cmd:'stats'} → arrivals, and the
// requests open now and the most open at once.
import http from 'node:http';

const hang = process.argv.includes('--hang');
const arrivals = [];
// Requests held open now and the most at once: what a hanging receiver bears from all senders (#24).
let open = 0;
let most = 0;
const server = http.createServer((req, res) => {
  open += 1;
  most = Math.max(most, open);
  res.on('close', () => {
    open -= 1;
  });
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    if (hang) return; // never answers
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      arrivals.push([Date.parse(event.createdAt), at, event.type]);
    } catch {
      arrivals.push([NaN, at, 'unparsable']);
    }
    res.writeHead(200, { 'content-length': 2 });
    res.end('ok');
  });
});
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.send({ cmd: 'ready', url: `http://127.0.0.1:${server.address().port}/hooks` }));
process.on('message', (msg) => {
  if (msg.cmd === 'stats') process.send({ cmd: 'stats', arrivals, open, most });
  if (msg.cmd === 'reset') {
    arrivals.length = 0;
    process.send({ cmd: 'reset' });
  }
  if (msg.cmd === 'stop') process.exit(0);
});
