import { describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/domain/ids.js';

const V7_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('is an RFC 9562 version 7 UUID carrying the millisecond timestamp', () => {
    const at = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
    const id = uuidv7(at);
    expect(id).toMatch(V7_RE);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts in creation order across milliseconds, and never goes back when the clock does', () => {
    const t = Date.UTC(2030, 0, 1); // later than any id made before in this process
    const a = uuidv7(t);
    const b = uuidv7(t + 1);
    const c = uuidv7(t - 5_000); // the wall clock stepped back
    expect(a < b).toBe(true);
    expect(c.slice(0, 13)).toBe(b.slice(0, 13));
  });

  it('is unique across many ids in the same millisecond', () => {
    const at = Date.UTC(2031, 0, 1);
    const ids = new Set(Array.from({ length: 10_000 }, () => uuidv7(at)));
    expect(ids.size).toBe(10_000);
    for (const id of ids) expect(id).toMatch(V7_RE);
  });
});
