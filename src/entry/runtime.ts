// dist/runtime.js: the Node check and the compile cache (src/runtime.ts), run before anything else by
// bin/svc.js and by the package's other entry points; and the loader of dist/'s chunks, which every
// entry point's module (dist/index.js, dist/cli/main.js, …) calls. Tests import src/runtime.ts
// without these effects.
import { prepareRuntime } from '../runtime.js';

prepareRuntime();

export { loadChunk, setCodeCacheTag } from './chunk-loader.js';
