/**
 * parseKey reads a key's prefix by hand (src/domain/keys.ts): it must accept exactly what
 * /^(pt_)?(test|live)_[0-9A-Za-z]{32}$/ accepts, and say the same kind and environment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateKey, parseKey } from '../../src/domain/keys.js';

const PATTERN = /^(pt_)?(test|live)_[0-9A-Za-z]{32}$/;
const byPattern = (key: string) => {
  const m = PATTERN.exec(key);
  return m ? { kind: m[1] ? 'partner' : 'merchant', environment: m[2] } : null;
};

describe('parseKey', () => {
  it('reads every key svc makes', () => {
    for (const kind of ['partner', 'merchant'] as const) {
      for (const environment of ['test', 'live'] as const) expect(parseKey(generateKey(kind, environment))).toEqual({ kind, environment });
    }
  });

  it('accepts what the pattern accepts, and nothing else: near misses of every part, and any text', () => {
    const body = fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-!é😀 '), minLength: 30, maxLength: 34 });
    const prefix = fc.constantFrom('pt_test_', 'pt_live_', 'test_', 'live_', 'pt_', 'pt_pt_test_', 'Test_', 'pt_tests_', 'tes_', '', 'sk_test_', 'pt-test_');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(prefix, body).map(([p, b]) => p + b),
          fc.string({ maxLength: 50 }),
        ),
        (key) => {
          expect(parseKey(key)).toEqual(byPattern(key));
        },
      ),
      { numRuns: 5000, seed: 44 },
    );
  });
});
