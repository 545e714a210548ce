import { keccak_256 as nobleKeccak } from '@noble/hashes/sha3.js';

/**
 * keccak-256, as Ethereum and Tron use it (not SHA3-256: the padding differs), for the deposit
 * addresses (./addresses.ts): three hashes per invoice created. @noble/hashes' permutation runs as
 * JavaScript, and the first create of a process ran it cold: ~0.6 ms for the first hash, ~0.2 for
 * each after, and ~180 KB of garbage (bench #13, the first create of every test file). Here the
 * permutation, Keccak-f[1600], is a WebAssembly module of ~1.5 KB (scripts/keccak-wasm.mjs writes
 * it; test/unit/keccak.test.ts checks that it is that script's and that the hash is @noble/hashes'):
 * a few microseconds a hash from the first. Where WebAssembly is off (`node --jitless`), @noble's.
 */
const MODULE = [
  'AGFzbQEAAAABBAFgAAADAgEABQMBAAEHDgIGbWVtb3J5AgABZgAACroJAbcJAjh+AX9BACkDACEAQQApAwghAUEAKQMQIQJB',
  'ACkDGCEDQQApAyAhBEEAKQMoIQVBACkDMCEGQQApAzghB0EAKQNAIQhBACkDSCEJQQApA1AhCkEAKQNYIQtBACkDYCEMQQAp',
  'A2ghDUEAKQNwIQ5BACkDeCEPQQApA4ABIRBBACkDiAEhEUEAKQOQASESQQApA5gBIRNBACkDoAEhFEEAKQOoASEVQQApA7AB',
  'IRZBACkDuAEhF0EAKQPAASEYQQAhOANAIAAgBYUgCoUgD4UgFIUhMiABIAaFIAuFIBCFIBWFITMgAiAHhSAMhSARhSAWhSE0',
  'IAMgCIUgDYUgEoUgF4UhNSAEIAmFIA6FIBOFIBiFITYgNiAzQgGJhSE3IAAgN4UhACAFIDeFIQUgCiA3hSEKIA8gN4UhDyAU',
  'IDeFIRQgMiA0QgGJhSE3IAEgN4UhASAGIDeFIQYgCyA3hSELIBAgN4UhECAVIDeFIRUgMyA1QgGJhSE3IAIgN4UhAiAHIDeF',
  'IQcgDCA3hSEMIBEgN4UhESAWIDeFIRYgNCA2QgGJhSE3IAMgN4UhAyAIIDeFIQggDSA3hSENIBIgN4UhEiAXIDeFIRcgNSAy',
  'QgGJhSE3IAQgN4UhBCAJIDeFIQkgDiA3hSEOIBMgN4UhEyAYIDeFIRggACEZIAVCJIkhKSAKQgOJISAgD0IpiSEwIBRCEokh',
  'JyABQgGJISMgBkIsiSEaIAtCCokhKiAQQi2JISEgFUICiSExIAJCPokhLSAHQgaJISQgDEIriSEbIBFCD4khKyAWQj2JISIg',
  'A0IciSEeIAhCN4khLiANQhmJISUgEkIViSEcIBdCOIkhLCAEQhuJISggCUIUiSEfIA5CJ4khLyATQgiJISYgGEIOiSEdIBkg',
  'GkJ/hSAbg4UhACAaIBtCf4UgHIOFIQEgGyAcQn+FIB2DhSECIBwgHUJ/hSAZg4UhAyAdIBlCf4UgGoOFIQQgHiAfQn+FICCD',
  'hSEFIB8gIEJ/hSAhg4UhBiAgICFCf4UgIoOFIQcgISAiQn+FIB6DhSEIICIgHkJ/hSAfg4UhCSAjICRCf4UgJYOFIQogJCAl',
  'Qn+FICaDhSELICUgJkJ/hSAng4UhDCAmICdCf4UgI4OFIQ0gJyAjQn+FICSDhSEOICggKUJ/hSAqg4UhDyApICpCf4UgK4OF',
  'IRAgKiArQn+FICyDhSERICsgLEJ/hSAog4UhEiAsIChCf4UgKYOFIRMgLSAuQn+FIC+DhSEUIC4gL0J/hSAwg4UhFSAvIDBC',
  'f4UgMYOFIRYgMCAxQn+FIC2DhSEXIDEgLUJ/hSAug4UhGCAAIDgpA8gBhSEAIDhBCGoiOEHAAUcNAAtBACAANwMAQQAgATcD',
  'CEEAIAI3AxBBACADNwMYQQAgBDcDIEEAIAU3AyhBACAGNwMwQQAgBzcDOEEAIAg3A0BBACAJNwNIQQAgCjcDUEEAIAs3A1hB',
  'ACAMNwNgQQAgDTcDaEEAIA43A3BBACAPNwN4QQAgEDcDgAFBACARNwOIAUEAIBI3A5ABQQAgEzcDmAFBACAUNwOgAUEAIBU3',
  'A6gBQQAgFjcDsAFBACAXNwO4AUEAIBg3A8ABCwvIAQEAQcgBC8ABAQAAAAAAAACCgAAAAAAAAIqAAAAAAACAAIAAgAAAAICL',
  'gAAAAAAAAAEAAIAAAAAAgYAAgAAAAIAJgAAAAAAAgIoAAAAAAAAAiAAAAAAAAAAJgACAAAAAAAoAAIAAAAAAi4AAgAAAAACL',
  'AAAAAAAAgImAAAAAAACAA4AAAAAAAIACgAAAAAAAgIAAAAAAAACACoAAAAAAAAAKAACAAAAAgIGAAIAAAACAgIAAAAAAAIAB',
  'AACAAAAAAAiAAIAAAACA',
].join('');

/** Bytes absorbed per permutation: 1600 bits of state less twice the 256-bit capacity. */
const RATE = 136;

interface Permutation {
  /** Permutes `state` in place. */
  f: () => void;
  /** The 200 bytes of state (25 little-endian 64-bit lanes) in the module's memory. */
  state: Uint8Array;
}

let permutation: Permutation | null | undefined;

function wasm(): Permutation | null {
  if (permutation !== undefined) return permutation;
  permutation = null;
  try {
    const { f, memory } = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(MODULE, 'base64'))).exports;
    if (typeof f === 'function' && memory instanceof WebAssembly.Memory) permutation = { f: () => f(), state: new Uint8Array(memory.buffer, 0, 200) };
  } catch {
    // No WebAssembly here (node --jitless): @noble/hashes' keccak.
  }
  return permutation;
}

/** keccak-256 of `data`. */
export function keccak256(data: Uint8Array): Uint8Array {
  const p = wasm();
  if (!p) return nobleKeccak(data);
  const { f, state } = p;
  state.fill(0);
  let at = 0;
  for (; data.length - at >= RATE; at += RATE) {
    for (let i = 0; i < RATE; i++) state[i]! ^= data[at + i]!;
    f();
  }
  for (let i = 0; at + i < data.length; i++) state[i]! ^= data[at + i]!;
  // keccak's padding: 0x01 after the message, 0x80 at the end of the block (one byte 0x81 when they meet).
  state[data.length - at]! ^= 0x01;
  state[RATE - 1]! ^= 0x80;
  f();
  return state.slice(0, 32);
}

/** The module's bytes, for the test that compares them with scripts/keccak-wasm.mjs's. */
export const KECCAK_MODULE_BASE64 = MODULE;
