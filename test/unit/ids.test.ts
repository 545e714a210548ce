import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUuid, uuidv7, UuidV7Generator } from '../../src/domain/ids.js';
import { cryptoRandom, seededRandom } from '../../src/domain/random.js';

const V7_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

/** Each id greater than the one before, as strings (what an ORDER BY id compares). */
function expectStrictlyIncreasing(ids: string[]): void {
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) expect.fail(`id ${i} ${ids[i]} is not after ${ids[i - 1]}`);
}

describe('uuidv7', () => {
  it('is an RFC 9562 version 7 UUID carrying the millisecond timestamp', () => {
    const at = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
    const id = uuidv7(at);
    expect(id).toMatch(V7_RE);
    expect(msOf(id)).toBe(at);
  });

  it('sorts in creation order across milliseconds, and never goes back when the clock does', () => {
    const t = Date.UTC(2030, 0, 1); // later than any id made before in this process
    const a = uuidv7(t);
    const b = uuidv7(t + 1);
    const c = uuidv7(t - 5_000); // the wall clock stepped back
    expect(a < b).toBe(true);
    expect(b < c).toBe(true);
    expect(c.slice(0, 13)).toBe(b.slice(0, 13));
  });

  it('is monotonic within a millisecond: 10,000 ids at one instant sort as strings in the order they were made (RFC 9562 §6.2)', () => {
    const at = Date.UTC(2031, 0, 1);
    const ids = Array.from({ length: 10_000 }, () => uuidv7(at));
    expectStrictlyIncreasing(ids);
    for (const id of ids) {
      expect(id).toMatch(V7_RE);
      expect(msOf(id)).toBe(at);
    }
  });

  it('moves the timestamp on by one when the 74 random bits would overflow, and stays in order', () => {
    const gen = new UuidV7Generator();
    const at = Date.UTC(2032, 0, 1);
    const first = gen.next(at, Buffer.alloc(16, 0xff)); // the largest random bits there are
    expect(first).toMatch(V7_RE);
    expect(first.endsWith('7fff-bfff-ffffffffffff')).toBe(true);
    const second = gen.next(at, Buffer.alloc(16, 0));
    expect(second).toMatch(V7_RE);
    expect(msOf(second)).toBe(at + 1);
    expect(first < second).toBe(true);
    // The next id at the original instant follows the moved timestamp.
    const third = gen.next(at, Buffer.alloc(16, 0));
    expect(msOf(third)).toBe(at + 1);
    expect(second < third).toBe(true);
  });

  it('adds 1 + the drawn 32-bit value to the previous random bits within a millisecond, carrying across the variant bits', () => {
    const gen = new UuidV7Generator();
    const at = Date.UTC(2033, 0, 1);
    const start = Buffer.alloc(16, 0);
    start.fill(0xff, 8); // byte 8's six random bits and bytes 9…15 at their maximum
    const a = gen.next(at, start);
    const inc = Buffer.alloc(16, 0);
    inc.writeUInt32BE(41, 12); // increment 42
    const b = gen.next(at, inc);
    const prefix = a.slice(0, 13);
    expect(a).toBe(`${prefix}-7000-bfff-ffffffffffff`);
    expect(b).toBe(`${prefix}-7001-8000-000000000029`);
  });
});

describe('Random.uuidv7', () => {
  it('is monotonic within a millisecond with seeded and with OS randomness', () => {
    const at = Date.UTC(2026, 0, 1);
    for (const random of [seededRandom(7, 0), cryptoRandom()]) {
      const ids = Array.from({ length: 10_000 }, () => random.uuidv7(at));
      expectStrictlyIncreasing(ids);
      for (const id of ids) expect(msOf(id)).toBe(at);
    }
  });

  it('gives the same ids for the same seed, and draws 16 bytes per id whether or not the millisecond repeats', () => {
    const make = () => {
      const random = seededRandom(42, 3);
      return [random.uuidv7(1000), random.uuidv7(1000), random.uuidv7(1001), random.uuid(), random.uuidv7(1001), random.bytes(4).toString('hex')];
    };
    expect(make()).toEqual(make());
    // The stream stays aligned: after two v7 ids at one instant, the next draw is the 33rd byte.
    const a = seededRandom(42, 3);
    a.uuidv7(1000);
    a.uuidv7(1000);
    const b = seededRandom(42, 3);
    b.bytes(32);
    expect(a.bytes(8).toString('hex')).toBe(b.bytes(8).toString('hex'));
    expect(seededRandom(43, 3).uuidv7(1000)).not.toBe(seededRandom(42, 3).uuidv7(1000));
  });
});

describe('isUuid', () => {
  const PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  it('accepts what the pattern accepts, and nothing else: ids, their near misses, and any text', () => {
    const unit = fc.constantFrom(...'0123456789abcdefABCDEFgG-xz {}'.split(''));
    const near = fc.tuple(fc.uuid(), fc.nat(35), unit).map(([id, at, c]) => id.slice(0, at) + c + id.slice(at + 1));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uuid(),
          fc.uuid().map((id) => id.toUpperCase()),
          near,
          fc.string({ unit, minLength: 34, maxLength: 38 }),
          fc.string(),
        ),
        (s) => {
          expect(isUuid(s)).toBe(PATTERN.test(s));
        },
      ),
      { numRuns: 5000, seed: 44 },
    );
    expect(isUuid(uuidv7())).toBe(true);
  });
});
