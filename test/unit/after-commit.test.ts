import { describe, expect, it } from 'vitest';
import { type TxBody, withAfterCommit } from '../../src/store/db.js';

// The engines' transactions call withAfterCommit around their own commit (sqlite-db.ts, postgres/
// engine.ts): callbacks must run only once the engine's transaction resolved, i.e. committed.
describe('withAfterCommit', () => {
  const repos = {} as TxBody;

  it('runs the callbacks after the transaction resolved, in order, and resolves with its result', async () => {
    const order: string[] = [];
    const result = await withAfterCommit(
      (tx) => {
        tx.afterCommit(() => order.push('first'));
        tx.afterCommit(() => order.push('second'));
        order.push('body');
        return 42;
      },
      async (body) => {
        const value = await body(repos);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push('committed');
        return value;
      },
    );
    expect(result).toBe(42);
    expect(order).toEqual(['body', 'committed', 'first', 'second']);
  });

  it('drops them when the transaction rejects (a rollback, a failed commit)', async () => {
    let called = false;
    const failing = withAfterCommit(
      (tx) => {
        tx.afterCommit(() => {
          called = true;
        });
      },
      async (body) => {
        await body(repos);
        throw new Error('commit failed');
      },
    );
    await expect(failing).rejects.toThrow('commit failed');
    expect(called).toBe(false);
  });
});
