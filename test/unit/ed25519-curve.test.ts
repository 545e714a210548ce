import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { isOnEd25519Curve } from '../../src/domain/ed25519-curve.js';

/** noble's ZIP-215 decoding is the independent reference: it accepts exactly what dalek accepts. */
function nobleOnCurve(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes, true);
    return true;
  } catch {
    return false;
  }
}

describe('isOnEd25519Curve', () => {
  it('agrees with noble on 3,000 random encodings', () => {
    let on = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes = randomBytes(32);
      const expected = nobleOnCurve(bytes);
      expect(isOnEd25519Curve(bytes)).toBe(expected);
      if (expected) on++;
    }
    // About half of all y coordinates lie on the curve; both branches were exercised.
    expect(on).toBeGreaterThan(1200);
    expect(on).toBeLessThan(1800);
  });

  it('accepts real public keys, the identity and a non-canonical y', () => {
    for (let i = 0; i < 50; i++) expect(isOnEd25519Curve(ed25519.getPublicKey(randomBytes(32)))).toBe(true);
    const identity = new Uint8Array(32);
    identity[0] = 1;
    expect(isOnEd25519Curve(identity)).toBe(true);
    // y = p + 1 ≡ 1: dalek reduces it, so it decodes like the identity.
    const nonCanonical = Uint8Array.from(Buffer.from('eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex'));
    expect(isOnEd25519Curve(nonCanonical)).toBe(nobleOnCurve(nonCanonical));
  });

  it('refuses encodings of the wrong length', () => {
    expect(() => isOnEd25519Curve(new Uint8Array(31))).toThrow(TypeError);
  });
});
