/** The WebAssembly module of src/domain/keccak.ts (Keccak-f[1600]), as scripts/keccak-wasm.mjs writes it. */
export function keccakModule(): Uint8Array;
