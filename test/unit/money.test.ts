import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addAmounts,
  AMOUNT_PATTERN,
  compareAmounts,
  formatReceived,
  fromBaseUnits,
  isValidAmount,
  MAX_INTEGER_DIGITS,
  remainingAmount,
  scaleOf,
  subtractAmounts,
  toBaseUnits,
  zeroLike,
} from '../../src/domain/money.js';

const MAX_18 = '999999999999999999';

describe('isValidAmount', () => {
  it.each([
    '1',
    '0.1',
    '0.000001',
    '10.00',
    '100',
    '1.5',
    '0.10',
    MAX_18,
    `${MAX_18}.999999`,
    '100000000000000000', // 18 digits
  ])('accepts %j', (s) => {
    expect(isValidAmount(s)).toBe(true);
  });

  it.each([
    '01',
    '00',
    '1.',
    '.5',
    '1e3',
    '1E3',
    '-1',
    '+1',
    '0',
    '0.0',
    '0.000',
    '0.000000',
    ' 1',
    '1 ',
    '1\n',
    '1.1234567',
    '0.0000001',
    '1000000000000000000', // 19 integer digits
    `${MAX_18}9.5`,
    '',
    '1,5',
    '1_000',
    '0x10',
    'Infinity',
    'NaN',
    '١', // Arabic-Indic digit one
    '1.5.5',
  ])('rejects %j', (s) => {
    expect(isValidAmount(s)).toBe(false);
  });

  it.each([1, 1.5, 0, -1, 10n, null, undefined, {}, ['1'], true])('rejects the non-string %s', (v) => {
    expect(isValidAmount(v)).toBe(false);
  });

  it('exports the wire pattern and the integer-digit limit', () => {
    expect(AMOUNT_PATTERN.test('1.123456')).toBe(true);
    expect(AMOUNT_PATTERN.test('1.1234567')).toBe(false);
    expect(MAX_INTEGER_DIGITS).toBe(18);
  });
});

describe('scaleOf / zeroLike', () => {
  it.each([
    ['10', 0],
    ['10.0', 1],
    ['10.00', 2],
    ['0.000001', 6],
  ])('scaleOf(%j) = %d', (s, n) => {
    expect(scaleOf(s)).toBe(n);
  });

  it.each([
    ['10.00', '0.00'],
    ['10', '0'],
    ['0.000001', '0.000000'],
    ['5.5', '0.0'],
  ])('zeroLike(%j) = %j', (s, z) => {
    expect(zeroLike(s)).toBe(z);
  });
});

describe('addAmounts', () => {
  it.each([
    ['1.5', '2.25', '3.75'],
    ['10.00', '0', '10.00'],
    ['0', '10.00', '10.00'],
    ['0.1', '0.2', '0.3'], // 0.30000000000000004 in floating point
    ['1', '1', '2'],
    ['0.000001', '0.000001', '0.000002'],
    ['9.99', '0.01', '10.00'],
    [`${MAX_18}.999999`, '0.000001', '1000000000000000000.000000'],
    [MAX_18, MAX_18, '1999999999999999998'],
    ['-1.5', '1', '-0.5'],
  ])('%s + %s = %s', (a, b, sum) => {
    expect(addAmounts(a, b)).toBe(sum);
  });

  it('never rounds: ten 0.1 make 1.0, a thousand 0.000001 make 0.001000', () => {
    let s = '0';
    for (let i = 0; i < 10; i++) s = addAmounts(s, '0.1');
    expect(s).toBe('1.0');
    let t = '0';
    for (let i = 0; i < 1000; i++) t = addAmounts(t, '0.000001');
    expect(t).toBe('0.001000');
  });

  it('keeps every digit where a double would lose them', () => {
    // 2^53 < 999999999999999999.999999: as numbers these two would be equal.
    expect(addAmounts(`${MAX_18}.999998`, '0.000001')).toBe(`${MAX_18}.999999`);
  });

  it.each([
    ['1e3', '1'],
    [' 1', '1'],
    ['1.', '1'],
    ['.5', '1'],
    ['01', '1'],
    ['-0', '1'],
    ['1', 'abc'],
  ])('throws a TypeError on %j + %j', (a, b) => {
    expect(() => addAmounts(a, b)).toThrow(TypeError);
  });
});

describe('subtractAmounts', () => {
  it.each([
    ['3.75', '2.25', '1.50'],
    ['10', '10.5', '-0.5'],
    ['10.00', '10', '0.00'],
    ['1', '0.000001', '0.999999'],
    ['0.3', '0.1', '0.2'],
    ['0', '0.01', '-0.01'],
    ['1000000000000000000.000000', '0.000001', `${MAX_18}.999999`],
    ['5', '7', '-2'],
  ])('%s − %s = %s', (a, b, d) => {
    expect(subtractAmounts(a, b)).toBe(d);
  });
});

describe('compareAmounts', () => {
  it.each([
    ['1.50', '1.5', 0],
    ['1', '1.000000', 0],
    ['0.1', '0.100001', -1],
    ['2', '10', -1],
    ['10', '9.999999', 1],
    [`${MAX_18}.999999`, `${MAX_18}.999998`, 1],
    ['-1', '0', -1],
    ['0', '0.00', 0],
  ] as const)('compare(%s, %s) = %d', (a, b, c) => {
    expect(compareAmounts(a, b)).toBe(c);
  });
});

describe('remainingAmount', () => {
  it.each([
    ['10.00', '0', '10.00'],
    ['10.00', '4', '6.00'],
    ['10.00', '10', '0.00'],
    ['10.00', '12.5', '0.00'],
    ['10.00', '10.005', '0.00'],
    ['10.00', '0.005', '9.995'],
    ['10.00', '3.333333', '6.666667'],
    ['10', '5.50', '4.5'],
    ['10', '10', '0'],
    ['10', '12', '0'],
    ['10.5', '0.25', '10.25'],
    ['0.000001', '0', '0.000001'],
    [`${MAX_18}.999999`, '0.000001', `${MAX_18}.999998`],
  ])('amount %s, received %s → %s', (amount, received, rest) => {
    expect(remainingAmount(amount, received)).toBe(rest);
  });
});

describe('formatReceived (CONTRACT §2)', () => {
  it.each([
    ['10.00', '0', '0.00'],
    ['10.00', '10', '10.00'],
    ['10.00', '10.005', '10.005'],
    ['10', '5.50', '5.5'],
    ['10', '0', '0'],
    ['10.00', '10.100', '10.10'],
    ['10.000000', '1', '1.000000'],
    ['10.00', '0.000000000000000001', '0.000000000000000001'], // an 18-decimal token's smallest unit
    ['10.00', '25.000000000000000000', '25.00'],
    ['1', '999999999999999999999.5', '999999999999999999999.5'],
  ])('amount %s, received %s → %s', (amount, received, shown) => {
    expect(formatReceived(amount, received)).toBe(shown);
  });
});

describe('toBaseUnits / fromBaseUnits', () => {
  it.each([
    ['1', 6, 1_000_000n],
    ['0.000001', 6, 1n],
    ['10.00', 6, 10_000_000n],
    ['1.5', 18, 1_500_000_000_000_000_000n],
    ['0', 6, 0n],
    [`${MAX_18}.999999`, 6, 999_999_999_999_999_999_999_999n],
    [`${MAX_18}.999999`, 18, 999_999_999_999_999_999_999_999_000_000_000_000n],
    ['7', 0, 7n],
  ] as const)('toBaseUnits(%s, %d) = %s', (amount, decimals, units) => {
    expect(toBaseUnits(amount, decimals)).toBe(units);
  });

  it('throws a RangeError when the amount has more fraction digits than the token', () => {
    expect(() => toBaseUnits('1.1234567', 6)).toThrow(RangeError);
    expect(() => toBaseUnits('0.0000001', 6)).toThrow(RangeError);
    expect(() => toBaseUnits('1.5', 0)).toThrow(RangeError);
    expect(() => toBaseUnits('-1', 6)).toThrow(RangeError);
    expect(() => toBaseUnits('1', -1)).toThrow(RangeError);
    expect(() => toBaseUnits('1', 1.5)).toThrow(RangeError);
  });

  it.each([
    [1_000_000n, 6, '1'],
    [1_500_000n, 6, '1.5'],
    [1n, 6, '0.000001'],
    [1n, 18, '0.000000000000000001'],
    [0n, 6, '0'],
    [0n, 0, '0'],
    [123n, 0, '123'],
    [10n ** 24n, 6, '1000000000000000000'],
    [12_340_000_000_000_000_000n, 18, '12.34'],
    [-1_500_000n, 6, '-1.5'],
  ] as const)('fromBaseUnits(%s, %d) = %s', (units, decimals, s) => {
    expect(fromBaseUnits(units, decimals)).toBe(s);
  });
});

// ---- property tests against an independent bigint reference ----

/** An amount as the reference sees it: integer units at a fixed scale. */
interface Ref {
  units: bigint;
  scale: number;
}

function refOf(s: string): Ref {
  const negative = s.startsWith('-');
  const [int, frac = ''] = (negative ? s.slice(1) : s).split('.');
  const units = BigInt(`${int}${frac}`);
  return { units: negative ? -units : units, scale: frac.length };
}

function refAt(r: Ref, scale: number): bigint {
  return r.units * 10n ** BigInt(scale - r.scale);
}

function render(units: bigint, scale: number): string {
  const sign = units < 0n ? '-' : '';
  const abs = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  return scale === 0 ? `${sign}${abs}` : `${sign}${abs.slice(0, -scale)}.${abs.slice(-scale)}`;
}

/** Valid wire amounts of every size: up to 18 integer digits and 0–6 fraction digits. */
const amountArb = fc
  .record({
    units: fc.bigInt({ min: 1n, max: 10n ** 24n - 1n }),
    scale: fc.integer({ min: 0, max: 6 }),
  })
  .filter(({ units, scale }) => units < 10n ** BigInt(18 + scale))
  .map(({ units, scale }) => render(units, scale));

/** Received values: like amounts, but zero allowed too. */
const receivedArb = fc.oneof(amountArb, fc.constantFrom('0', '0.0', '0.000000'));

describe('properties', () => {
  it('generated amounts are valid', () => {
    fc.assert(fc.property(amountArb, (a) => isValidAmount(a)));
  });

  it('add matches the reference and subtract undoes it', () => {
    fc.assert(
      fc.property(amountArb, amountArb, (a, b) => {
        const ra = refOf(a);
        const rb = refOf(b);
        const scale = Math.max(ra.scale, rb.scale);
        const sum = addAmounts(a, b);
        expect(sum).toBe(render(refAt(ra, scale) + refAt(rb, scale), scale));
        expect(addAmounts(b, a)).toBe(sum);
        const back = subtractAmounts(sum, b);
        expect(compareAmounts(back, a)).toBe(0);
        expect(scaleOf(back)).toBe(scale);
        expect(subtractAmounts(a, b)).toBe(render(refAt(ra, scale) - refAt(rb, scale), scale));
      }),
    );
  });

  it('compare matches the reference', () => {
    fc.assert(
      fc.property(amountArb, amountArb, (a, b) => {
        const ra = refOf(a);
        const rb = refOf(b);
        const scale = Math.max(ra.scale, rb.scale);
        const d = refAt(ra, scale) - refAt(rb, scale);
        expect(compareAmounts(a, b)).toBe(d < 0n ? -1 : d > 0n ? 1 : 0);
        expect(compareAmounts(b, a)).toBe(d < 0n ? 1 : d > 0n ? -1 : 0);
      }),
    );
  });

  it('formatReceived keeps the value and at least the amount’s scale', () => {
    fc.assert(
      fc.property(amountArb, receivedArb, (amount, received) => {
        const shown = formatReceived(amount, received);
        expect(compareAmounts(shown, received)).toBe(0);
        const s = scaleOf(shown);
        expect(s).toBeGreaterThanOrEqual(scaleOf(amount));
        // Digits beyond the amount's scale are there only because the value needs them.
        if (s > scaleOf(amount)) expect(shown.endsWith('0')).toBe(false);
      }),
    );
  });

  it('remaining + received covers the amount exactly until it is paid', () => {
    fc.assert(
      fc.property(amountArb, receivedArb, (amount, received) => {
        const rest = remainingAmount(amount, received);
        expect(scaleOf(rest)).toBeGreaterThanOrEqual(scaleOf(amount));
        if (compareAmounts(received, amount) >= 0) {
          expect(rest).toBe(zeroLike(amount));
        } else {
          expect(compareAmounts(addAmounts(rest, received), amount)).toBe(0);
        }
      }),
    );
  });

  it('base units round-trip for 6- and 18-decimal tokens', () => {
    fc.assert(
      fc.property(amountArb, fc.constantFrom(6, 18), (a, decimals) => {
        const units = toBaseUnits(a, decimals);
        const r = refOf(a);
        expect(units).toBe(refAt(r, decimals));
        const back = fromBaseUnits(units, decimals);
        expect(compareAmounts(back, a)).toBe(0);
        expect(back.endsWith('.')).toBe(false);
        if (back.includes('.')) expect(back.endsWith('0')).toBe(false);
      }),
    );
  });
});
