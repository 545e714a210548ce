// The baseline: a bare node:http server answering one fixed JSON body (an invoice-sized document,
// so the comparison is HTTP + JSON of the same size against the emulator's whole request path).
import http from 'node:http';

const body = process.argv[2] ?? '{"ok":true}';
const length = Buffer.byteLength(body);
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
    res.end(body);
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.send({ cmd: 'ready', url: `http://127.0.0.1:${server.address().port}` }));
process.on('message', (msg) => {
  if (msg.cmd === 'stop') server.close(() => process.exit(0));
});
