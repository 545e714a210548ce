import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/server/api-error.js';
import { refuseUnstorableText, unstorableAt } from '../../src/server/validation/storable-text.js';

const refusal = (body: unknown) => {
  try {
    refuseUnstorableText(body);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('text no engine stores as sent (server/validation/storable-text.ts)', () => {
  it('names the first field holding U+0000 or a lone surrogate, in objects, arrays and keys', () => {
    expect(unstorableAt({ amount: '1.00', referenceId: 'a\0b' }, '')).toEqual({ path: 'referenceId', nul: true });
    expect(
      unstorableAt(
        {
          headers: [
            { name: 'X', value: 'ok' },
            { name: 'Y', value: '\0' },
          ],
        },
        '',
      ),
    ).toEqual({ path: 'headers[1].value', nul: true });
    expect(unstorableAt({ match: { 'pa\0th': 1 } }, '')).toEqual({ path: 'match.pa\0th', nul: true });
    expect(unstorableAt({ referenceId: 'x\ud800' }, '')).toEqual({ path: 'referenceId', nul: false });
    expect(unstorableAt({ referenceId: '\udc00x' }, '')).toEqual({ path: 'referenceId', nul: false });
    // A whole pair, the six characters of a JSON escape, and what is not a string are fine.
    expect(unstorableAt({ emoji: '😀', note: '\\u0000', n: 0, ok: true, none: null }, '')).toBeUndefined();
  });

  it('refuses with 400 validation_failed naming the field', () => {
    expect(refusal({ referenceId: 'order\u00001' })).toBeInstanceOf(ApiError);
    expect(refusal({ referenceId: 'order\u00001' })).toMatchObject({
      status: 400,
      code: 'validation_failed',
      param: 'referenceId',
      message: 'referenceId must not contain the character U+0000 (NUL).',
    });
    expect(refusal({ name: 'Shop \ud83d' })).toMatchObject({
      param: 'name',
      message: 'name must be Unicode text (it holds a lone surrogate, such as \\ud800).',
    });
    expect(refusal({ referenceId: 'order 1', name: 'Café 😀' })).toBeUndefined();
  });
});
