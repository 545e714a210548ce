import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/server/api-error.js';
import { nulAt, refuseNul } from '../../src/server/validation/nul.js';

describe('U+0000 in a body (server/validation/nul.ts)', () => {
  it('names the first field holding one, in objects, arrays and keys', () => {
    expect(nulAt({ amount: '1.00', referenceId: 'a\0b' }, '')).toBe('referenceId');
    expect(
      nulAt(
        {
          headers: [
            { name: 'X', value: 'ok' },
            { name: 'Y', value: '\0' },
          ],
        },
        '',
      ),
    ).toBe('headers[1].value');
    expect(nulAt({ match: { ['pa\0th']: 1 } }, '')).toBe('match.pa\0th');
    expect(nulAt('\0', '')).toBe('');
    // The six characters of the JSON escape are not the character.
    expect(nulAt({ note: '\\u0000', n: 0, ok: true, none: null }, '')).toBeUndefined();
  });

  it('refuses with 400 validation_failed naming the field', () => {
    let thrown: unknown;
    try {
      refuseNul({ referenceId: 'order\u00001' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ status: 400, code: 'validation_failed', param: 'referenceId' });
    expect((thrown as Error).message).toBe('referenceId must not contain the character U+0000 (NUL).');
    expect(() => refuseNul({ referenceId: 'order 1' })).not.toThrow();
  });
});
