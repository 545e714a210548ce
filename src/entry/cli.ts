// bin/svc.js's CLI: the Node check and the compile cache first (src/runtime.ts), then the commands.
import './runtime.js';

export { main } from '../cli/main.js';
