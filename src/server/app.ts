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
 * named stages in ./pipeline/index.ts. `routes` may be a loader: the routes' handlers and all they
 * use are then imported by the first request, and the emulator is ready without them (bench #12).
 */
export function createApp(deps: AppDeps, routes: readonly RouteDef[] | (() => Promise<readonly RouteDef[]>)): RequestHandler {
  // The integration suite's response checker, when installed; undefined otherwise.
  const observe = responseObserver();
  // Built by the first request: `svc dev` is ready before its router and stages exist.
  let run: Pipeline | undefined;
  let building: Promise<Pipeline> | undefined;
  const pipeline = (): Pipeline | Promise<Pipeline> => {
    if (run) return run;
    if (typeof routes !== 'function') return (run = createPipeline(deps, routes, observe));
    building ??= routes().then((loaded) => (run = createPipeline(deps, loaded, observe)));
    return building;
  };
  // Request ids need to be unique, not secret: a random prefix per emulator and a counter, rather
  // than random bytes per request (which showed in profiles of the read path).
  const idPrefix = `req_${fillFromOs(Buffer.alloc(6)).toString('hex')}`;
  let counter = 0;

  return (req, res) => {
    const started = performance.now();
    const requestId = `${idPrefix}${(++counter).toString(16).padStart(10, '0')}`;
    res.setHeader('Request-Id', requestId);
    const ctx = newContext(req, res, deps, requestId, started);
    const ready = pipeline();
    // Errors are answered by the pipeline's own stage (renderErrors); nothing is left to reject.
    if (typeof ready === 'function') void ready(ctx);
    // The routes' import failed (a broken install): nothing can answer this request properly.
    else ready.then((built) => built(ctx)).catch((error: unknown) => res.destroy(error instanceof Error ? error : undefined));
  };
}

type Pipeline = ReturnType<typeof createPipeline>;
