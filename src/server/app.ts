import type { IncomingMessage, ServerResponse } from 'node:http';
import { fillFromOs } from '../domain/os-random.js';
import { responseObserver } from './response-observer.js';
import type { AppDeps, RouteDef } from './route.js';
import { monotonicMs } from '../clock/monotonic.js';

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
  // Built by the first request, with the pipeline's stages (and the routes, from a loader): `svc dev`
  // is ready before they are loaded (bench #12).
  let serve: Serve | undefined;
  let building: Promise<Serve> | undefined;
  const ready = (): Serve | Promise<Serve> =>
    serve ??
    (building ??= Promise.all([import('./pipeline/index.js'), typeof routes === 'function' ? routes() : routes]).then(([pipeline, loaded]) => {
      const run = pipeline.createPipeline(deps, loaded, observe);
      serve = (req, res, requestId, started) => run(pipeline.newContext(req, res, deps, requestId, started));
      return serve;
    }));
  // Request ids need to be unique, not secret: a random prefix per emulator and a counter, rather
  // than random bytes per request (which showed in profiles of the read path).
  const idPrefix = `req_${fillFromOs(Buffer.alloc(6)).toString('hex')}`;
  let counter = 0;

  return (req, res) => {
    const started = monotonicMs();
    const requestId = `${idPrefix}${(++counter).toString(16).padStart(10, '0')}`;
    res.setHeader('Request-Id', requestId);
    const now = ready();
    // Errors are answered by the pipeline's own stage (renderErrors); nothing is left to reject.
    if (typeof now === 'function') void now(req, res, requestId, started);
    // The pipeline's import failed (a broken install): nothing can answer this request properly.
    else now.then((built) => built(req, res, requestId, started)).catch((error: unknown) => res.destroy(error instanceof Error ? error : undefined));
  };
}

/** A request through the pipeline, once it is built. */
type Serve = (req: IncomingMessage, res: ServerResponse, requestId: string, started: number) => void | Promise<void>;
