/**
 * `meta` holds the default identity, the clock offset and the random epoch as JSON. A restored
 * snapshot is untrusted (CONTRACT §8): a value read back is checked, and one of another shape is an
 * error naming the key, not a wrong type flowing on (issue 26).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getMeta, isFiniteNumber, setMeta } from '../../src/store/repos/meta.js';
import { sqliteRunner } from '../../src/store/sqlite/runner.js';
import { type OpenedStore, openStore } from '../../src/store/sqlite/store.js';

let store: OpenedStore | undefined;
afterEach(() => store?.close());

describe('getMeta', () => {
  it('returns what was stored when it has the expected shape, undefined when absent', async () => {
    store = await openStore({ file: ':memory:' });
    const db = sqliteRunner(store);
    expect(await getMeta(db, 'clock_offset_test', isFiniteNumber)).toBeUndefined();
    await setMeta(db, 'clock_offset_test', 1234);
    expect(await getMeta(db, 'clock_offset_test', isFiniteNumber)).toBe(1234);
  });

  it('refuses a value of another shape, naming the key', async () => {
    store = await openStore({ file: ':memory:' });
    const db = sqliteRunner(store);
    await setMeta(db, 'clock_offset_test', '1234');
    await expect(getMeta(db, 'clock_offset_test', isFiniteNumber)).rejects.toThrow(/meta entry clock_offset_test/);
  });
});
