/**
 * keccak-256 through the WebAssembly permutation of src/domain/keccak.ts: the module is the one
 * scripts/keccak-wasm.mjs writes (from the definitions of FIPS 202), and the hash is @noble/hashes'
 * keccak_256 byte for byte, at every length around the block's edges and for any bytes.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KECCAK_MODULE_BASE64, keccak256 } from '../../src/domain/keccak.js';
import { keccakModule } from '../../scripts/keccak-wasm.mjs';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('keccak-256', () => {
  it('runs the module scripts/keccak-wasm.mjs writes', () => {
    expect(KECCAK_MODULE_BASE64).toBe(Buffer.from(keccakModule()).toString('base64'));
  });

  it('gives the known hashes', () => {
    expect(hex(keccak256(new Uint8Array(0)))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    // The selector of ERC-20's transfer(address,uint256) is its first four bytes.
    expect(hex(keccak256(Buffer.from('transfer(address,uint256)'))).slice(0, 8)).toBe('a9059cbb');
  });

  it("is @noble/hashes' keccak_256 at every length up to three blocks (the padding's edges: 135, 136, 271, 272)", () => {
    const bytes = Uint8Array.from({ length: 3 * 136 + 2 }, (_, i) => (i * 131 + 7) & 0xff);
    for (let length = 0; length <= bytes.length; length++) {
      const data = bytes.subarray(0, length);
      expect(hex(keccak256(data)), `${length} bytes`).toBe(hex(keccak_256(data)));
    }
  });

  it("is @noble/hashes' keccak_256 for any bytes, and leaves them as they were", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (data) => {
        const before = hex(data);
        expect(hex(keccak256(data))).toBe(hex(keccak_256(data)));
        expect(hex(data)).toBe(before);
      }),
      { numRuns: 500, seed: 44 },
    );
  });
});
