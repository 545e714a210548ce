import { randomBytes } from 'node:crypto';
import { STATUS_CODES, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorProperty } from '../../domain/caught.js';

/**
 * Requests Node cannot parse (headers over 16 KiB, broken framing, control characters) never reach
 * the app; without this they get Node's bare reply. Answer them in the contract's shape too.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // A pipelined request ahead of the broken one may still be in the app. Clients pair responses with
  // requests in order: its response goes first, then this one (the parser has stopped, nothing else
  // follows). When the broken bytes are that request's own, it is refused by this answer instead.
  // `_httpMessage` is Node's own (undocumented) link from a socket to the response being written.
  const current: unknown = Reflect.get(socket, '_httpMessage');
  if (current instanceof ServerResponse && !current.writableFinished) {
    if (current.req.complete) {
      current.once('finish', () => answerClientError(error, socket));
      current.once('close', () => current.writableFinished || socket.destroy());
      return;
    }
    // Never write into a response that has started (Node's own rule for its default answer).
    if (current.headersSent) {
      socket.destroy();
      return;
    }
  }
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'The request headers are larger than 16 KiB.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request did not arrive in time.']
        : [400, 'invalid_request', 'The request is not valid HTTP/1.1.'];
  const body = JSON.stringify({ error: { code, message } });
  // A response to HEAD has no body (RFC 9110 §9.3.2): a client reads none, and would take the bytes
  // for garbage after the response (Node's own client fails the request).
  const head = isHeadRequest(errorProperty(error, 'rawPacket'), errorProperty(error, 'bytesParsed'));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nRequest-Id: req_${randomBytes(12).toString('hex')}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
}

/**
 * Whether the refused bytes are a HEAD request. The parser does not tell the method of a request it
 * refused, but the bytes it was parsing start with the request line whenever the head arrived in
 * one piece (clients write it at once, and 16 KiB fit in one read); a request line that came in an
 * earlier read is unknown here, and gets the body.
 */
function isHeadRequest(raw: unknown, bytesParsed: unknown): boolean {
  if (!Buffer.isBuffer(raw)) return false;
  // Requests pipelined ahead of it in the same read end with a blank line before the refused one.
  const blank = raw.lastIndexOf('\r\n\r\n', typeof bytesParsed === 'number' ? bytesParsed : raw.length);
  const start = blank === -1 ? 0 : blank + 4;
  return raw.toString('latin1', start, start + 5) === 'HEAD ';
}
