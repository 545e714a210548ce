import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * A test-time hook (as Firebase's auth emulator validates its own responses): the integration suite
 * installs an observer that checks every response against the OpenAPI document. Not part of the
 * public API; an emulator created without an observer pays one `undefined` check per request.
 */
export interface ObservedResponse {
  /** The contract's operation that answered; undefined when no operation did (pages, 404, 405, refused hosts). */
  operationId: string | undefined;
  method: string;
  path: string;
  status: number;
  headers: OutgoingHttpHeaders;
  /** The body as sent; undefined for a stream. */
  body: string | undefined;
}

export type ResponseObserver = (response: ObservedResponse) => void;

let current: ResponseObserver | undefined;

/** Installs (or, with undefined, removes) the observer of emulators created from now on. */
export function observeResponses(observer: ResponseObserver | undefined): void {
  current = observer;
}

export function responseObserver(): ResponseObserver | undefined {
  return current;
}

/** What the app learns about a request as it serves it, for the observer. */
export interface Seen {
  operationId: string | undefined;
}

/** Reports `res` to `observer` once it is sent: its status, headers and the body passed to `end`. */
export function watchResponse(res: ServerResponse, method: string, path: string, observer: ResponseObserver): Seen {
  const seen: Seen = { operationId: undefined };
  let body: string | undefined;
  const end = res.end;
  // Node's `end` is overloaded; a rest-parameter wrapper passing everything on fits every overload.
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    const chunk = args[0];
    if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) body = chunk.toString();
    return Reflect.apply(end, this, args);
  };
  let reported = false;
  const report = () => {
    if (reported || !res.headersSent) return;
    reported = true;
    const headers = res.getHeaders();
    const type = String(headers['content-type'] ?? '');
    const stream = type.startsWith('text/event-stream') || type.startsWith('application/vnd.sqlite3');
    observer({ operationId: seen.operationId, method, path, status: res.statusCode, headers, body: stream ? undefined : (body ?? '') });
  };
  res.once('finish', report);
  res.once('close', report);
  return seen;
}
