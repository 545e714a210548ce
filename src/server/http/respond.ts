import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StorageCondition } from '../../store/conditions.js';
import { ApiError } from '../api-error.js';
import { TempFolderError } from '../../store/temp-folder.js';
import type { RouteResult } from '../route.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Writes a route's result. `text` is the body already serialised, when the caller has it. Returns
 * the body sent (for the request journal), undefined for none or a stream.
 */
export function sendResult(res: ServerResponse, result: RouteResult, text?: string): string | undefined {
  if (result.stream && result.headers?.['content-type']) {
    // A download (a snapshot file): the handler named its type and length.
    res.writeHead(result.status, result.headers);
    result.stream(res);
    return undefined;
  }
  if (result.stream) {
    // Server-sent events: no length, no buffering by proxies, kept open until either side closes.
    res.writeHead(result.status, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    result.stream(res);
    return undefined;
  }
  let payload: string;
  let type: string;
  if (result.html !== undefined) {
    type = 'text/html; charset=utf-8';
    payload = result.html;
  } else if (result.text !== undefined) {
    type = result.contentType ?? 'text/plain; charset=utf-8';
    payload = result.text;
  } else if (result.json !== undefined || text !== undefined) {
    type = JSON_TYPE;
    payload = text ?? result.json!;
  } else if (result.body === undefined) {
    res.writeHead(result.status, result.headers).end();
    return undefined;
  } else {
    type = JSON_TYPE;
    payload = JSON.stringify(result.body);
  }
  // One writeHead with every header: cheaper than a setHeader per header on the hot paths.
  res.writeHead(result.status, { ...result.headers, 'Content-Type': type, 'Content-Length': Buffer.byteLength(payload) }).end(payload);
  return payload;
}

/** An idempotent replay: 200, the first response's body byte for byte (CONTRACT §2). */
export function sendReplay(res: ServerResponse, body: string): string {
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Idempotent-Replayed', 'true');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.writeHead(200).end(body);
  return body;
}

/**
 * Any error as the contract's error shape; never a stack trace in the body. `condition` is what the
 * store's engine says the error means (store/conditions.ts), if it is one of its own. Returns the body sent.
 */
export function sendError(req: IncomingMessage, res: ServerResponse, error: unknown, condition: StorageCondition | null = null): string | undefined {
  const apiError =
    error instanceof ApiError
      ? error
      : (tempFolderError(error) ??
        storageError(condition) ??
        new ApiError(500, 'internal_error', `Something went wrong inside the emulator; it was logged with request id ${String(res.getHeader('Request-Id'))}.`));
  if (res.headersSent) {
    res.destroy();
    return undefined;
  }
  const body = JSON.stringify(apiError.toBody());
  if (apiError.headers) for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
  res.removeHeader('Warning');
  // A body we stopped reading (too large, too slow) must not be parsed as the next request.
  if (!req.complete) res.setHeader('Connection', 'close');
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.writeHead(apiError.status).end(body);
  return body;
}

/** The temporary folder a snapshot in transit needs cannot be made (a read-only /tmp): 507, naming it. */
function tempFolderError(error: unknown): ApiError | null {
  return error instanceof TempFolderError ? new ApiError(507, 'temporary_folder_unavailable', `The emulator ${error.message}. Nothing was changed.`) : null;
}

/**
 * Database conditions a client can do something about (CONTRACT §8, §12): another program holds a
 * lock past the 5 s wait (503, try again), the database cannot be reached (503), or nothing more can
 * be stored (507).
 */
export function storageError(condition: StorageCondition | null): ApiError | null {
  if (condition === 'busy') {
    return new ApiError(503, 'database_busy', "The emulator's database is locked by another program; nothing was changed. Try again in a moment.", undefined, {
      'Retry-After': '1',
    });
  }
  if (condition === 'unavailable') {
    // The connection may have dropped during the commit: say what the client can rely on.
    return new ApiError(
      503,
      'database_unavailable',
      "The emulator's database cannot be reached (it may be restarting). A write may or may not have been stored: retry (a create with the same Idempotency-Key).",
      undefined,
      { 'Retry-After': '1' },
    );
  }
  if (condition === 'full') {
    return new ApiError(
      507,
      'storage_full',
      "The emulator's database cannot be written: the disk is full (or a file size limit was reached). Nothing was changed.",
    );
  }
  return null;
}
