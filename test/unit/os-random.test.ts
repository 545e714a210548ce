/**
 * Keys, ids and the request-id prefix come from the operating system's randomness without
 * node:crypto where there is a random device (src/domain/os-random.ts), and keys are hashed with
 * @noble/hashes (src/domain/keys.ts): the same SHA-256 node:crypto computes, byte for byte.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashKey } from '../../src/domain/keys.js';
import { fillFromOs, osUuid } from '../../src/domain/os-random.js';
import { cryptoRandom } from '../../src/domain/random.js';

describe("the operating system's randomness", () => {
  it('fills every byte, and two draws differ', () => {
    const a = fillFromOs(Buffer.alloc(64));
    const b = fillFromOs(Buffer.alloc(64));
    expect(a.equals(b)).toBe(false);
    // 8,192 bytes: every byte value appears (a buffer left zeroed, or filled in part, would not).
    const big = fillFromOs(Buffer.alloc(8192));
    expect(new Set(big).size).toBe(256);
  });

  it('makes version 4 UUIDs, and the emulator’s random source too', () => {
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const random = cryptoRandom();
    const ids = [osUuid(), osUuid(), random.uuid(), random.uuid()];
    for (const id of ids) expect(id).toMatch(v4);
    expect(new Set(ids).size).toBe(4);
  });
});

describe('hashKey', () => {
  it("is node:crypto's SHA-256 in hex, for any key", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (key) => {
        expect(hashKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
      }),
    );
    expect(hashKey('pt_test_0123456789abcdefghijABCDEFGHIJ01')).toBe(createHash('sha256').update('pt_test_0123456789abcdefghijABCDEFGHIJ01').digest('hex'));
  });
});
