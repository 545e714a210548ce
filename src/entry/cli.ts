// dist/cli/main.js: the commands. bin/svc.js runs dist/runtime.js (the Node check and the compile
// cache) before it imports this, so the CLI's chunks are read from the compile cache.
export { main } from '../cli/main.js';
