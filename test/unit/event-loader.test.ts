import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../src/store/repos/events.js';
import { EventLoader } from '../../src/webhooks/event-loader.js';

const row = (id: string): EventRow => ({
  seq: 1,
  id,
  invoice_id: 'inv',
  sequence: 1,
  type: 'invoice.created',
  environment: 'test',
  partner_id: 'p',
  merchant_id: 'm',
  payload: '{}',
  created_at: 0,
});

describe('EventLoader', () => {
  it('reads what one turn asks for in one read, each caller its own row, a missing one undefined', async () => {
    const reads: string[][] = [];
    const loader = new EventLoader(async (ids) => {
      reads.push([...ids]);
      return ids.filter((id) => id !== 'gone').map(row);
    });
    const got = await Promise.all([loader.load('a'), loader.load('b'), loader.load('a'), loader.load('gone')]);
    expect(reads).toEqual([['a', 'b', 'gone']]);
    expect(got.map((r) => r?.id)).toEqual(['a', 'b', 'a', undefined]);
    // A later turn reads again.
    expect((await loader.load('c'))?.id).toBe('c');
    expect(reads).toEqual([['a', 'b', 'gone'], ['c']]);
  });

  it('gives every caller of a failed read its error, and reads again next time', async () => {
    let fail = true;
    const loader = new EventLoader(async (ids) => {
      if (fail) throw new Error('database_unavailable');
      return ids.map(row);
    });
    const results = await Promise.allSettled([loader.load('a'), loader.load('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect((await loader.load('a'))?.id).toBe('a');
  });
});
