import type * as Loaded from './loaded-schemas.js';

/**
 * zod and the request schemas are loaded by the first request that validates a body or a query,
 * not when the emulator starts: `svc dev` and `svc exec` are ready ~20 ms sooner without them, and
 * a run that sends no body never pays for them (bench #12, #16; docs/performance.md). Routes that
 * validate say so (`RouteDef.validated`), and the server awaits `loadSchemas()` before reading
 * their schemas; `startEmulator()` awaits it too, so the in-process API can validate synchronously.
 */
let loaded: typeof Loaded | undefined;
let loading: Promise<typeof Loaded> | undefined;

export function loadSchemas(): Promise<typeof Loaded> {
  loading ??= import('./loaded-schemas.js').then((module) => {
    loaded = module;
    return module;
  });
  return loading;
}

export const schemasLoaded = (): boolean => loaded !== undefined;

/** The loaded schemas; only after `loadSchemas()` has resolved (a route marked `validated`, or a started emulator). */
export function schemas(): typeof Loaded {
  if (!loaded) throw new Error('request schemas read before loadSchemas() resolved');
  return loaded;
}
