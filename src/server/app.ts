import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { fillFromOs } from '../domain/os-random.js';
import { createPipeline, newContext } from './pipeline/index.js';
import { responseObserver } from './response-observer.js';
import type { AppDeps, RouteDef } from './route.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Builds the emulator's request handler without listening (ARCHITECTURE habit 1): `startEmulator`,
 * tests and users' own servers mount it the same way. What it does to a request is the pipeline of
 * named stages in ./pipeline/index.ts.
 */
export function createApp(deps: AppDeps, routes: readonly RouteDef[]): RequestHandler {
  // The integration suite's response checker, when installed; undefined otherwise.
  const observe = responseObserver();
  // Built by the first request: `svc dev` is ready before its router and stages exist (bench #12).
  let run: ReturnType<typeof createPipeline> | undefined;
  // Request ids need to be unique, not secret: a random prefix per emulator and a counter, rather
  // than random bytes per request (which showed in profiles of the read path).
  const idPrefix = `req_${fillFromOs(Buffer.alloc(6)).toString('hex')}`;
  let counter = 0;

  return (req, res) => {
    const started = performance.now();
    const requestId = `${idPrefix}${(++counter).toString(16).padStart(10, '0')}`;
    res.setHeader('Request-Id', requestId);
    run ??= createPipeline(deps, routes, observe);
    // Errors are answered by the pipeline's own stage (renderErrors); nothing is left to reject.
    void run(newContext(req, res, deps, requestId, started));
  };
}
