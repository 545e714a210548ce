/**
 * `svc proxy` (CONTRACT §13): the API on 127.0.0.1, forwarded to an upstream deployment unchanged
 * both ways, every request and answer held to the OpenAPI document. Violations go to the caller
 * (`onExchange`: the CLI's stderr lines), into `Svc-Contract-Violations: <count>` on the answer, the
 * proxy's own request journal (`GET /__emulator/requests`, the emulator's journal with `violations`)
 * and, with `record`, one masked JSON line per exchange. An upstream that cannot be reached answers
 * 502 `upstream_unavailable` in the contract's error shape. Like the emulator, it answers only for
 * loopback hosts (DNS rebinding) and refuses cross-site writes to its journal.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { API_PATH_PREFIX } from '../../contract/operation.js';
import { ApiError } from '../../server/api-error.js';
import { printable, refuseCrossSite } from '../../server/http/cross-site.js';
import { createHostCheck } from '../../server/http/host-check.js';
import { BODY_LIMIT } from '../../server/journal/journal.js';
import { maskAuthorization } from '../../server/journal/mask.js';
import { listen } from '../../server/listen.js';
import { createContractChecker } from '../contract/contract-checker.js';
import { headerMap, type ExchangeRequest, type ExchangeResponse, type Violation } from '../contract/exchange.js';
import { createUpstream, HOP_BY_HOP } from './forward.js';
import { journalAnswer } from './journal-routes.js';
import { ProxyJournal } from './proxy-journal.js';
import { openRecordFile, recordOf, type RecordFile } from './record-file.js';
import { monotonicMs } from '../../clock/monotonic.js';

export interface ProxyOptions {
  /** The deployment's base URL (http or https; a path prefix is kept). */
  upstream: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Append one masked JSON line per exchange to this file (created mode 0600). */
  record?: string;
  /** Told of each exchange once answered. */
  onExchange?: (exchange: ProxyExchange) => void;
}

/** An exchange as the proxy answered it. */
export interface ProxyExchange {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  violations: Violation[];
}

export interface ContractProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly upstream: string;
  readonly journal: ProxyJournal;
  stop(): Promise<void>;
}

/** How much of a body the checker and the recording see; the upstream gets all of it. */
const SEEN_LIMIT = 2 * 1024 * 1024;

export async function startProxy(options: ProxyOptions): Promise<ContractProxy> {
  const upstreamUrl = new URL(options.upstream);
  const upstream = createUpstream(upstreamUrl, SEEN_LIMIT);
  const checker = createContractChecker();
  const journal = new ProxyJournal();
  const recording: RecordFile | null = options.record ? openRecordFile(options.record) : null;
  const allowed = createHostCheck({ allowedHosts: [], ownHosts: ['127.0.0.1'] });

  const own = (res: ServerResponse, error: ApiError) => {
    const body = JSON.stringify(error.toBody());
    res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'request-id': newRequestId() });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = monotonicMs();
    const at = Date.now();
    const target = req.url ?? '/';
    const path = target.split('?')[0]!;
    if (!allowed(req.headers.host)) {
      return own(
        res,
        new ApiError(
          403,
          'host_not_allowed',
          `The Host "${printable(req.headers.host ?? '')}" is not one svc proxy answers to (DNS rebinding protection): use 127.0.0.1 or localhost.`,
        ),
      );
    }
    if (!path.startsWith(API_PATH_PREFIX)) {
      // A write from a web page (clearing the journal) is refused before it happens (CONTRACT §8).
      if (req.method !== 'GET') refuseCrossSite(req.headers, `http://${req.headers.host ?? ''}`);
      const answer = journalAnswer(journal, req, path, target);
      if (answer === null)
        return own(
          res,
          new ApiError(
            404,
            'not_found',
            `svc proxy forwards ${API_PATH_PREFIX}… to ${options.upstream}; it serves its request journal besides, and nothing at ${printable(path)}.`,
          ),
        );
      if (answer instanceof ApiError) return own(res, answer);
      const text = JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        'request-id': newRequestId(),
      });
      res.end(text);
      return;
    }

    const forwarded = await upstream.forward(req, target);
    const request: ExchangeRequest = {
      method: req.method ?? 'GET',
      path,
      query: target.includes('?') ? target.slice(target.indexOf('?') + 1) : '',
      headers: headerMap(req.headers),
      body: forwarded.body.bytes.length > 0 ? forwarded.body.bytes.toString('utf8') : null,
    };
    let response: ExchangeResponse;
    let violations: Violation[];
    let requestId: string;
    const { answer } = forwarded;
    if (answer) {
      response = { status: answer.status, headers: answer.headers, body: answer.body.toString('utf8') };
      violations = [...(forwarded.body.truncated ? [] : checker.checkRequest(request)), ...checker.checkResponse(request, response)];
      requestId = answer.headers['request-id'] ?? newRequestId();
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && name !== 'content-length') headers[name] = value;
      headers['content-length'] = String(answer.body.length);
      headers['svc-contract-violations'] = String(violations.length);
      // Answered before the client's body was all read (the upstream refused it early): the rest of
      // it must not be read as the next request.
      if (!req.complete) headers.connection = 'close';
      res.writeHead(answer.status, headers).end(answer.body);
    } else {
      const error = new ApiError(502, 'upstream_unavailable', `svc proxy could not reach the upstream ${options.upstream}: ${forwarded.failure}.`);
      const text = JSON.stringify(error.toBody());
      requestId = newRequestId();
      response = { status: 502, headers: { 'content-type': 'application/json; charset=utf-8', 'request-id': requestId }, body: text };
      violations = [];
      res
        .writeHead(502, {
          ...response.headers,
          'content-length': Buffer.byteLength(text),
          'svc-contract-violations': '0',
          ...(req.complete ? {} : { connection: 'close' }),
        })
        .end(text);
    }
    const durationMs = monotonicMs() - started;
    journal.add(
      {
        id: requestId,
        at,
        method: request.method,
        path,
        query: request.query,
        status: response.status,
        durationMs,
        principal: null,
        key: maskAuthorization(request.headers.authorization),
        idempotencyKey: request.headers['idempotency-key'] ?? null,
        replayed: response.headers['idempotent-replayed'] === 'true',
        requestBody: request.body === null ? null : request.body.slice(0, BODY_LIMIT),
        responseBody: response.body === '' ? null : response.body.slice(0, BODY_LIMIT),
        truncated: (request.body?.length ?? 0) > BODY_LIMIT || response.body.length > BODY_LIMIT || forwarded.body.truncated,
        fault: response.headers['svc-fault'] ?? null,
        fromDashboard: false,
      },
      violations,
    );
    recording?.append(recordOf(at, request, response, violations));
    options.onExchange?.({ requestId, method: request.method, path, status: response.status, durationMs, violations });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof ApiError && !res.headersSent) return own(res, error);
      if (!res.headersSent) own(res, new ApiError(500, 'internal_error', `svc proxy failed: ${error instanceof Error ? error.message : String(error)}`));
      else res.destroy();
    });
  });
  // The upstream's own timeouts apply; Node's defaults would cut a slow upload short first.
  server.requestTimeout = 0;
  let port: number;
  try {
    ({ port } = await listen(server, options.port ?? 0, '127.0.0.1'));
  } catch (error) {
    await upstream.close();
    recording?.close();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    upstream: options.upstream,
    journal,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await upstream.close();
      recording?.close();
    },
  };
}

/** The proxy's own answers carry a Request-Id like the emulator's (`req_` and hex). */
const newRequestId = () => `req_${randomBytes(11).toString('hex')}`;
