// dist/runtime.js: the Node check and the compile cache (src/runtime.ts), run before anything else by
// the package's entry points; and the loader of dist/'s chunks, which every entry point's module
// (dist/index.js, …) calls. dist/runtime.cjs is the same, for bin/svc.js and dist/cli/main.cjs (the
// CLI's CommonJS path). Tests import src/runtime.ts without these effects.
import { prepareRuntime } from '../runtime.js';

prepareRuntime();

export { loadChunk, setCodeCacheTag } from './chunk-loader.js';
