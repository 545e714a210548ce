// dist/cli/main.cjs: the commands. bin/svc.js requires it through dist/runtime.cjs (the Node check and
// the compile cache) first, CommonJS all the way (scripts/commonjs-chunks.mjs).
export { main } from '../cli/main.js';
