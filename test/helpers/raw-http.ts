/**
 * A raw HTTP client for the bad-input tests: node:http with every header and byte ours (no fetch
 * defaults), a bare TCP exchange for requests that are not valid HTTP at all, and a streamed large body.
 */
import http from 'node:http';
import net from 'node:net';

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

export function send(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const headers: Record<string, string> = { ...req.headers };
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : Buffer.from(req.body);
    if (body && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(body.length);
    const r = http.request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // The server may close the connection once it has answered (e.g. without reading a body).
    r.on('error', (error) => {
      if (!answered) reject(error);
    });
    r.end(body);
  });
}

/** Writes `text` on a fresh TCP connection and parses the raw HTTP response that comes back. */
export function rawExchange(port: number, text: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text, 'latin1'));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('latin1');
      const split = all.indexOf('\r\n\r\n');
      if (split === -1) return reject(new Error(`no HTTP response: ${JSON.stringify(all.slice(0, 200))}`));
      const [statusLine, ...lines] = all.slice(0, split).split('\r\n');
      const headers: http.IncomingHttpHeaders = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      const length = Number(headers['content-length'] ?? NaN);
      const rest = Buffer.from(all.slice(split + 4), 'latin1');
      const text = (Number.isFinite(length) ? rest.subarray(0, length) : rest).toString('utf8');
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, text });
    });
    // Keep-alive responses leave the socket open: close once something arrived.
    socket.on('data', () => setTimeout(() => socket.end(), 200));
  });
}

/**
 * Resolves at the request's next 'drain' or its 'close', whichever comes first, and removes the
 * other listener: left behind, one 'close' listener per full buffer piles up on a large body (and
 * Node warns of a leak past ten).
 */
function drainOrClose(r: http.ClientRequest): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      r.off('drain', done);
      r.off('close', done);
      resolve();
    };
    r.once('drain', done).once('close', done);
  });
}

/**
 * POSTs to /v1/invoices a body of `total` bytes, `prefix` + padding + `suffix`, as a stream of writes
 * that stops once the server has answered; resolves with the response.
 */
export function sendLarge(port: number, headers: Record<string, string>, prefix: string, total: number, suffix: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const r = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/invoices', headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        r.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    r.on('error', (error) => {
      if (!answered) reject(error);
    });
    const padding = total - Buffer.byteLength(prefix) - Buffer.byteLength(suffix);
    const write = async () => {
      r.write(prefix);
      const piece = 'p'.repeat(64 * 1024);
      let left = padding;
      while (left > 0 && !answered && !r.destroyed) {
        const part = left >= piece.length ? piece : piece.slice(0, left);
        left -= part.length;
        if (!r.write(part)) await drainOrClose(r);
      }
      if (!answered && !r.destroyed) r.end(suffix);
    };
    write().catch(() => undefined);
  });
}
