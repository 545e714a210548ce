/**
 * The WebAssembly globals src/domain/keccak.ts uses. Node has them; TypeScript declares them only in
 * its DOM library, which svc leaves out (it would declare `window`, `document`, … for Node code).
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
  }
}
