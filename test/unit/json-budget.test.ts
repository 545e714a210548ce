/**
 * The value counter behind CONTRACT §8's 10,000-value limit (src/server/http/json-budget.ts): it must
 * agree with a real parse on every JSON text, across the limit, whatever the strings hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsValueBudget, MAX_JSON_VALUES } from '../../src/server/http/json-budget.js';

/** Values in a parsed document: every object, array, string, number, boolean and null; keys are not values. */
function countValues(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce((n: number, v) => n + countValues(v), 0);
  if (value !== null && typeof value === 'object') return 1 + Object.values(value).reduce((n: number, v) => n + countValues(v), 0);
  return 1;
}

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('exceedsValueBudget', () => {
  it('agrees with a parse on random JSON, for limits around its count', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: -2, max: 2 }), fc.boolean(), (value, delta, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const count = countValues(value);
        const limit = Math.max(0, count + delta);
        // A limit this small scans even the shortest text.
        expect(exceedsValueBudget(bytes(text), limit)).toBe(count > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('counts objects keyed by strings full of quotes, backslashes and punctuation as their values only', () => {
    const text = JSON.stringify({ 'a"\\{': ['x\\', '"', '\\"{[:,'], '': { '\\\\': null } });
    expect(countValues(JSON.parse(text))).toBe(7);
    expect(exceedsValueBudget(bytes(text), 7)).toBe(false);
    expect(exceedsValueBudget(bytes(text), 6)).toBe(true);
  });

  it('at the default limit: 10,000 values pass, 10,001 do not; 1 MiB of {} is refused', () => {
    const of = (n: number) => bytes(JSON.stringify(Array.from({ length: n - 1 }, () => 0)));
    expect(exceedsValueBudget(of(MAX_JSON_VALUES))).toBe(false);
    expect(exceedsValueBudget(of(MAX_JSON_VALUES + 1))).toBe(true);
    expect(exceedsValueBudget(bytes(`[${'{},'.repeat(349_000)}{}]`))).toBe(true);
  });

  it('skips texts too short to exceed the limit, and one long string is one value', () => {
    expect(exceedsValueBudget(bytes(`[${'0,'.repeat(9_998)}0]`))).toBe(false);
    expect(exceedsValueBudget(bytes(`[${'0,'.repeat(9_999)}0]`))).toBe(true);
    expect(exceedsValueBudget(bytes(JSON.stringify({ s: '{},'.repeat(300_000) })))).toBe(false);
  });

  it('an unterminated string or other broken text ends the scan without throwing', () => {
    expect(exceedsValueBudget(bytes(`["${'a'.repeat(30_000)}`))).toBe(false);
    expect(exceedsValueBudget(bytes('{'.repeat(30_000)))).toBe(true);
  });
});
