import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/context.js';
import { idempotencyKey } from '../../src/cli/service.js';

const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
const ctx = createContext({ globals: { color: false }, stdout: quiet, stderr: quiet, stdinIsTTY: false, env: {} });

describe('the Idempotency-Key a create sends', () => {
  it('is the flag when given', () => {
    expect(idempotencyKey(ctx, 'order-7')).toBe('order-7');
  });

  it('is otherwise a fresh version 4 UUID, a different one each time', () => {
    const keys = Array.from({ length: 2000 }, () => idempotencyKey(ctx, undefined));
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
