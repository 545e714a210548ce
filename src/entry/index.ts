// The package's import (`svc-emulator`): the Node check and the compile cache first (src/runtime.ts),
// then the API. Tests import src/index.ts itself, without these process-wide effects.
import './runtime.js';

export * from '../index.js';
