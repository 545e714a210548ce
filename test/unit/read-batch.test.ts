import { describe, expect, it } from 'vitest';
import { MAX_BATCH, ReadBatch } from '../../src/store/postgres/read-batch.js';

interface Row {
  id: string;
  n: number;
}

/** A load whose answers the test gives by hand, one call at a time, recording the ids of each. */
function manualLoad(rows: Map<string, Row>) {
  const calls: { ids: string[]; answer(): void; fail(error: Error): void }[] = [];
  const load = (ids: string[]) =>
    new Promise<Row[]>((resolve, reject) => {
      calls.push({
        ids,
        answer: () => resolve(ids.flatMap((id) => (rows.has(id) ? [rows.get(id)!] : []))),
        fail: reject,
      });
    });
  return { calls, load };
}

const rows = new Map(['a', 'b', 'c', 'd'].map((id, n) => [id, { id, n }]));
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('batched reads by id (PostgreSQL, store/postgres/read-batch.ts)', () => {
  it('sends a lone read at once, and the reads asked meanwhile together once it answered', async () => {
    const { calls, load } = manualLoad(rows);
    const batch = new ReadBatch(load);
    const first = batch.read('a');
    expect(calls.map((c) => c.ids)).toEqual([['a']]);
    const later = [batch.read('b'), batch.read('c'), batch.read('b'), batch.read('missing')];
    // Still one statement on its way: the others wait for it.
    expect(calls).toHaveLength(1);
    calls[0]!.answer();
    expect(await first).toEqual({ id: 'a', n: 0 });
    await tick();
    // Each id once, in the order asked.
    expect(calls.map((c) => c.ids)).toEqual([['a'], ['b', 'c', 'missing']]);
    calls[1]!.answer();
    const [b1, c, b2, missing] = await Promise.all(later);
    expect([b1, c, b2, missing]).toEqual([{ id: 'b', n: 1 }, { id: 'c', n: 2 }, { id: 'b', n: 1 }, undefined]);
    // Two callers of one id get two rows: one changing its own does not change the other's.
    expect(b1).not.toBe(b2);
  });

  it('fails every read of a batch that failed, and goes on with the next', async () => {
    const { calls, load } = manualLoad(rows);
    const batch = new ReadBatch(load);
    const first = batch.read('a');
    const waiting = [batch.read('b'), batch.read('c')];
    const lost = new Error('Connection terminated unexpectedly');
    calls[0]!.fail(lost);
    await expect(first).rejects.toBe(lost);
    await tick();
    calls[1]!.fail(lost);
    for (const read of waiting) await expect(read).rejects.toBe(lost);
    const after = batch.read('d');
    expect(calls.map((c) => c.ids)).toEqual([['a'], ['b', 'c'], ['d']]);
    calls[2]!.answer();
    expect(await after).toEqual({ id: 'd', n: 3 });
  });

  it('fails the reads of a load that threw before giving a promise, and goes on', async () => {
    let throws = true;
    const thrower = new ReadBatch((ids: string[]) => {
      if (throws) throw new Error('svc bug: no statement');
      return Promise.resolve(ids.map((id) => ({ id, n: 0 })));
    });
    await expect(thrower.read('a')).rejects.toThrow('svc bug: no statement');
    throws = false;
    expect(await thrower.read('b')).toEqual({ id: 'b', n: 0 });
  });

  it(`sends at most ${MAX_BATCH} ids in one statement`, async () => {
    const many = new Map(Array.from({ length: MAX_BATCH + 44 }, (_, n) => [`r${n}`, { id: `r${n}`, n }]));
    const { calls, load } = manualLoad(many);
    const batch = new ReadBatch(load);
    const first = batch.read('r0');
    const rest = [...many.keys()].slice(1).map((id) => batch.read(id));
    calls[0]!.answer();
    await first;
    await tick();
    expect(calls[1]!.ids).toHaveLength(MAX_BATCH);
    calls[1]!.answer();
    await tick();
    expect(calls[2]!.ids).toHaveLength(many.size - 1 - MAX_BATCH);
    calls[2]!.answer();
    expect((await Promise.all(rest)).map((r) => r?.n)).toEqual([...many.values()].slice(1).map((r) => r.n));
  });
});
