import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorAction } from './table.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A fault's error answer (CONTRACT §9): the contract's error shape with the fault's status and code,
 * `Retry-After` when it names one, and `Svc-Fault` (set by the caller, as on every faulted answer).
 * Returns the body sent.
 */
export function sendFault(req: IncomingMessage, res: ServerResponse, faultId: string, action: ErrorAction, committed: boolean): string {
  const message = committed
    ? `Injected by fault ${faultId} after the operation ran and was committed (svc faults).`
    : `Injected by fault ${faultId} instead of running the operation (svc faults); nothing was changed.`;
  const body = JSON.stringify({ error: { code: action.code, message } });
  res.removeHeader('Warning');
  if (action.retryAfter !== undefined) res.setHeader('Retry-After', String(action.retryAfter));
  // A body we did not read whole must not be parsed as the next request.
  if (!req.complete) res.setHeader('Connection', 'close');
  res.writeHead(action.status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) }).end(body);
  return body;
}

/** A `drop` fault: the connection closes without an answer, as when a server dies mid-request. */
export function dropConnection(res: ServerResponse): void {
  res.destroy();
}
