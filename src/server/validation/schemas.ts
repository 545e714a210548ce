import type * as Loaded from './loaded-schemas.js';
import { COMPILED } from '../../store/compiled.js';

/**
 * zod and the request schemas are loaded when first needed, not when the emulator starts: `svc dev`,
 * `svc exec` and an in-process start that only creates invoices are ready sooner without them (bench
 * #12, #13, #16; docs/performance.md), and a run that sends no body never pays for them. The invoice
 * creates validate without zod (./invoice-bodies.ts).
 *
 * In dist/ the import below is synchronous: the build writes dist/'s chunks as CommonJS and renders
 * this one import as a `require` whose result is at hand at once (scripts/commonjs-chunks.mjs), so
 * `schemas()` loads them when first read, as the in-process API's synchronous validations
 * (faults.add, webhookChaos.set) need. The sources are ES modules, where no import is synchronous:
 * there `startEmulator()` awaits `loadSchemas()` (`SCHEMAS_ON_READ`), and routes that validate
 * (`RouteDef.validated`) await it on their first request, as they do in dist/.
 */
const importSchemas = (): Promise<typeof Loaded> | AtHand<typeof Loaded> => import('./loaded-schemas.js');

/** What the build renders that import as in dist/: the module at hand, and a `then` that hands it over at once. */
type AtHand<T> = PromiseLike<T> & { readonly value: T };

/** Whether `schemas()` may be called before `loadSchemas()` has resolved: in dist/ (the build's SQL marks it). */
export const SCHEMAS_ON_READ = COMPILED !== null;

let loaded: typeof Loaded | undefined;
let loading: Promise<typeof Loaded> | undefined;

export function loadSchemas(): Promise<typeof Loaded> {
  // In a then: a module that throws while loading rejects, in dist/ as in the sources.
  loading ??= Promise.resolve()
    .then(importSchemas)
    .then((module) => {
      loaded = module;
      return module;
    });
  return loading;
}

export const schemasLoaded = (): boolean => loaded !== undefined;

/** The loaded schemas: in dist/ loaded now if they were not; in the sources, only after `loadSchemas()` has resolved. */
export function schemas(): typeof Loaded {
  if (loaded) return loaded;
  const now = SCHEMAS_ON_READ ? importSchemas() : null;
  if (now && 'value' in now) {
    loaded = now.value;
    return loaded;
  }
  throw new Error('request schemas read before loadSchemas() resolved');
}
