// Types of build-token.mjs, for test/unit/chain-token.test.ts.
export declare const SOURCE: string;
export declare const OUTPUT: string;
export interface CompiledToken {
  version: string;
  /** `0x…`: the runtime bytecode. */
  runtime: string;
  abi: { type: string; name?: string; inputs?: { name: string; type: string; indexed?: boolean }[]; outputs?: { type: string }[] }[];
}
export declare function compileToken(): Promise<CompiledToken>;
export declare function bytecodeModule(compiled: { version: string; runtime: string }): string;
