import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { canonicalJson } from '../domain/canonical-json.js';
import { findIdempotent, rememberIdempotent } from '../store/repos/idempotency.js';
import { ApiError } from './api-error.js';
import { authenticate } from './auth.js';
import { checkJsonContentType, hasBody, parseJsonObject, readBody } from './http/body.js';
import { sendError, sendResult, sendReplay } from './http/respond.js';
import { checkForbiddenFields, unknownFieldsOf } from './http/fields.js';
import { printable, refuseCrossSite, WRITE_METHODS } from './http/cross-site.js';
import { createHostCheck } from './http/host-check.js';
import { fingerprint, IDEMPOTENCY_RETENTION_MS, idempotencyKeyOf, idempotencyScope, InFlight } from './idempotency.js';
import type { AppDeps, Principal, RouteDef, RouteInput, RouteResult } from './route.js';
import { responseObserver, type Seen, watchResponse } from './response-observer.js';
import { Router } from './router.js';
import { parseWith } from './validation/parse.js';
import { loadSchemas, schemasLoaded } from './validation/schemas.js';
import { dropConnection, sendFault } from './faults/answer.js';
import type { ActiveFault } from './faults/table.js';
import { type JournalRecord, keptBody, keptText } from './journal/journal.js';
import { maskAuthorization } from './journal/mask.js';
import { checkControlAccess } from './http/control-access.js';

/** A slow sender gets a contract-shaped 408 after this long, not a dropped socket. */
const BODY_TIMEOUT_MS = 10_000;

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Builds the emulator's request handler without listening (ARCHITECTURE habit 1): `startEmulator`,
 * tests and users' own servers mount it the same way.
 */
export function createApp(deps: AppDeps, routes: readonly RouteDef[]): RequestHandler {
  const router = new Router<RouteDef>();
  for (const route of routes) router.add(route.method, route.path, route);
  const inFlight = new InFlight();
  // The integration suite's response checker, when installed; undefined otherwise.
  const observe = responseObserver();

  // Request ids need to be unique, not secret: a random prefix per emulator and a counter, rather
  // than random bytes per request (which showed in profiles of the read path).
  const idPrefix = `req_${randomBytes(6).toString('hex')}`;
  let counter = 0;
  // Built on the first request: the emulator's own hosts are known once it listens.
  let hostAllowed: ((host: string | undefined) => boolean) | undefined;
  let publicOrigin = '';

  return (req, res) => {
    const started = performance.now();
    const requestId = `${idPrefix}${(++counter).toString(16).padStart(10, '0')}`;
    res.setHeader('Request-Id', requestId);
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (deps.observed()) {
      res.once('finish', () => {
        deps.emit({
          type: 'request',
          requestId,
          method: req.method ?? 'GET',
          path,
          status: res.statusCode,
          durationMs: performance.now() - started,
        });
      });
    }
    const seen = observe && watchResponse(res, req.method ?? 'GET', path, observe);
    // The request journal (CONTRACT §9) keeps the API's requests only: /v1/…, not the control plane.
    const record = deps.journal.capacity > 0 && path.startsWith('/v1/') ? journalRecord(req, path, url, queryAt, requestId, deps.clock.now()) : undefined;
    if (record) {
      const done = () => {
        if (record.status === null && res.headersSent && !res.destroyed) record.status = res.statusCode;
        record.durationMs = performance.now() - started;
        deps.journal.add(record);
      };
      res.once('finish', () => {
        record.status = res.statusCode;
        done();
      });
      res.once('close', () => {
        if (!res.writableFinished) done();
      });
    }
    serve(req, res, path, queryAt === -1 ? '' : url.slice(queryAt + 1), requestId, seen, record).catch((error: unknown) => {
      if (!(error instanceof ApiError)) {
        deps.emit({
          type: 'error',
          requestId,
          message: `${req.method} ${path} failed: ${(error as Error)?.message ?? String(error)}`,
          stack: (error as Error)?.stack,
        });
      }
      const body = sendError(req, res, error);
      if (record && body !== undefined) record.responseBody = keptText(body, record);
    });
  };

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    search: string,
    requestId: string,
    seen: Seen | undefined,
    record: JournalRecord | undefined,
  ) {
    // DNS rebinding (CONTRACT §8): before the route lookup, so a foreign page learns nothing, not
    // even which paths exist.
    if (!hostAllowed) {
      hostAllowed = createHostCheck({ allowedHosts: deps.config.allowedHosts, ownHosts: deps.ownHosts() });
      publicOrigin = new URL(deps.baseUrl()).origin.toLowerCase();
    }
    if (!hostAllowed(req.headers.host)) throw hostNotAllowed(req.headers.host!);
    const found = router.lookup(req.method ?? 'GET', path);
    if (!found) throw new ApiError(404, 'not_found', `No route for ${req.method} ${path}.`);
    if ('allowed' in found) {
      throw new ApiError(405, 'method_not_allowed', `${req.method} is not allowed on ${path}; use ${found.allowed.join(' or ')}.`, undefined, {
        Allow: found.allowed.join(', '),
      });
    }
    const { route, params } = found.match;
    if (seen) seen.operationId = route.operationId;
    // Right after the lookup: whether a write needs the same origin depends on the route; an
    // unknown route or a wrong method changes nothing, whoever asks.
    if ((route.control || route.sameOriginWrites) && WRITE_METHODS.has(route.method)) refuseCrossSite(req.headers, publicOrigin);

    if (route.control) checkControlAccess(req.headers, req.socket.remoteAddress, deps.config);
    const principal = route.auth === 'none' ? null : authenticate(req.headers, deps.store, route.auth, deps.keyCache);
    if (record) record.principal = principal;
    if (route.testOnly && principal?.environment === 'live') {
      throw new ApiError(403, 'test_mode_only', 'Test helpers only work with test keys.');
    }

    // API faults (CONTRACT §9): after the key, so a fault can match the environment; never the
    // control plane, which must stay reachable to clear one.
    let fault: ActiveFault | undefined;
    if (deps.faults.size > 0 && path.startsWith('/v1/')) {
      fault = deps.faults.match(route.method, path, principal?.environment);
      if (fault?.when === 'before') {
        if (!deps.faults.fire(fault)) fault = undefined;
        else {
          res.setHeader('Svc-Fault', fault.id);
          if (record) record.fault = fault.id;
          if ('drop' in fault.action) return dropConnection(res);
          if ('status' in fault.action) {
            const body = sendFault(req, res, fault, false);
            if (record) record.responseBody = body;
            return;
          }
          if (!(await deps.faults.delay(fault.action.delayMs))) return dropConnection(res);
          fault = undefined;
        }
      }
    }
    /**
     * Sends the operation's answer, or, when an `after_commit` fault matches a success, the fault's:
     * the operation ran and committed either way (the "did my create happen?" case).
     */
    const answer = async (send: () => string | undefined, status: number) => {
      if (fault && status >= 200 && status < 300 && deps.faults.fire(fault)) {
        res.setHeader('Svc-Fault', fault.id);
        if (record) record.fault = fault.id;
        if ('drop' in fault.action) return dropConnection(res);
        if ('status' in fault.action) {
          const body = sendFault(req, res, fault, true);
          if (record) record.responseBody = body;
          return;
        }
        if (!(await deps.faults.delay(fault.action.delayMs))) return dropConnection(res);
      }
      const body = send();
      if (record && body !== undefined) record.responseBody = keptText(body, record);
    };

    let release: (() => void) | undefined;
    let idemKey: string | undefined;
    let endpoint = '';
    // Optional keys (test helpers): without the header the request simply acts, like any POST.
    if (route.idempotent && principal && !(route.idempotent.optional && req.headers['idempotency-key'] === undefined)) {
      idemKey = idempotencyKeyOf(req.headers);
      endpoint = route.idempotent.perPath ? `${route.idempotent.endpoint} ${path}` : route.idempotent.endpoint;
      release = inFlight.acquire(principal, endpoint, idemKey);
    }
    try {
      if (route.validated && !schemasLoaded()) await loadSchemas();
      let rawBody = await readRouteBody(req, route, record);
      if (rawBody !== undefined) checkForbiddenFields(rawBody, route.rejectFeeFields === true);
      if (!route.body && rawBody !== undefined) {
        // A route without a body ignores one (clients often send `{}`), after the same checks.
        warnUnknownFields(Object.keys(rawBody), route, res, deps, requestId);
        rawBody = undefined;
      }
      const input: Omit<RouteInput<unknown>, 'query'> & { query: unknown; principal?: Principal } = {
        params,
        // Operations get their query parsed (or none, without building anything); pages the raw one.
        query: route.query
          ? parseWith(route.query, Object.fromEntries(new URLSearchParams(search)))
          : route.operationId
            ? undefined
            : new URLSearchParams(search),
        body: rawBody,
        headers: req.headers,
        requestId,
        remoteAddress: req.socket.remoteAddress,
      };
      if (principal) input.principal = principal;

      if (route.idempotent && principal && idemKey !== undefined) {
        // Routes without a body (the confirm and expire helpers) compare as `{}`.
        const body = (rawBody ?? {}) as Record<string, unknown>;
        const tenant = route.idempotent.tenantScoped && typeof body.externalTenantId === 'string' ? body.externalTenantId : undefined;
        const scope = idempotencyScope(principal, endpoint, idemKey, tenant);
        const print = fingerprint(canonicalJson(body));
        const now = deps.clock.now();
        const previous = findIdempotent(deps.store, scope, now);
        if (previous) {
          if (previous.fingerprint !== print) {
            throw new ApiError(
              422,
              'idempotency_key_reused',
              'This Idempotency-Key was already used with a different request body; use a fresh key for a different request.',
            );
          }
          if (record) record.replayed = true;
          return answer(() => sendReplay(res, previous.response), 200);
        }
        input.body = route.body ? validate(route, body, res, deps, requestId) : undefined;
        // The create and the memory of it commit together: a crash cannot keep one without the other.
        const serialised = await deps.store.batch(() => {
          const result = route.handle(input as never, deps);
          if (result instanceof Promise) throw new Error(`idempotent route ${route.path} must be synchronous`);
          const text = result.json ?? JSON.stringify(result.body);
          if (result.status >= 200 && result.status < 300) {
            rememberIdempotent(deps.store, {
              scope,
              fingerprint: print,
              status: result.status,
              response: text,
              created_at: now,
              expires_at: now + IDEMPOTENCY_RETENTION_MS,
            });
          }
          return { result, text };
        });
        return answer(() => sendResult(res, serialised.result, serialised.text), serialised.result.status);
      }

      if (route.body && rawBody !== undefined) input.body = validate(route, rawBody, res, deps, requestId);
      const result: RouteResult = await route.handle(input as never, deps);
      return answer(() => sendResult(res, result), result.status);
    } finally {
      release?.();
    }
  }
}

/**
 * The body as a JSON object, or undefined when a route without a body schema got none. A body sent
 * to such a route follows the same rules as any body (CONTRACT §2): 415, 413, 400; empty is fine.
 */
async function readRouteBody(req: IncomingMessage, route: RouteDef, record: JournalRecord | undefined): Promise<Record<string, unknown> | undefined> {
  const present = hasBody(req);
  if (!present) {
    if (!route.body) return undefined;
    if (route.optionalBody) return {};
    throw new ApiError(400, 'invalid_json', 'The request body is empty; send a JSON object.');
  }
  checkJsonContentType(req);
  const raw = await readBody(req, BODY_TIMEOUT_MS);
  if (record) record.requestBody = keptBody(raw, record);
  if (!route.body && raw.length === 0) return undefined;
  return parseJsonObject(raw);
}

function hostNotAllowed(host: string): ApiError {
  const shown = printable(host);
  return new ApiError(
    403,
    'host_not_allowed',
    `The Host "${shown}" is not one this emulator answers to (DNS rebinding protection). If you reach it by that name, allow it: ` +
      `allowedHosts in the config file, svc dev --allowed-host ${shown.replace(/:\d+$/, '')}, or startEmulator({ allowedHosts }).`,
  );
}

function validate(route: RouteDef, body: unknown, res: ServerResponse, deps: AppDeps, requestId: string): unknown {
  const value = parseWith(route.body!, body);
  warnUnknownFields(unknownFieldsOf(route.body!, body as Record<string, unknown>), route, res, deps, requestId);
  return value;
}

function warnUnknownFields(unknown: string[], route: RouteDef, res: ServerResponse, deps: AppDeps, requestId: string): void {
  if (!unknown.length) return;
  const list = unknown.join(', ');
  // Header values must be printable ASCII; field names come from the client and may not be.
  res.setHeader('Warning', `299 svc-emulator "Unknown fields ignored: ${list.replace(/[^\x20-\x7e]|"/g, '?').slice(0, 200)}"`);
  deps.emit({ type: 'warning', requestId, message: `${route.method} ${route.path}: unknown fields ignored: ${list}` });
}

/** A journal entry for a request just arrived; the rest is filled in as the request is served. */
function journalRecord(req: IncomingMessage, path: string, url: string, queryAt: number, requestId: string, now: number): JournalRecord {
  const idempotencyKey = req.headers['idempotency-key'];
  return {
    id: requestId,
    at: now,
    method: req.method ?? 'GET',
    path,
    query: queryAt === -1 ? '' : url.slice(queryAt + 1),
    status: null,
    durationMs: 0,
    principal: null,
    key: maskAuthorization(req.headers.authorization),
    idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : null,
    replayed: false,
    requestBody: null,
    responseBody: null,
    truncated: false,
    fault: null,
    // The dashboard marks its own calls, so that the user's can be told apart (issue 24).
    fromDashboard: req.headers['svc-client'] === 'dashboard',
  };
}
