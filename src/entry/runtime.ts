// dist/runtime.js: the Node check and the compile cache (src/runtime.ts), run before anything else by
// bin/svc.js and by the package's other entry points. Tests import src/runtime.ts without this effect.
import { prepareRuntime } from '../runtime.js';

prepareRuntime();
