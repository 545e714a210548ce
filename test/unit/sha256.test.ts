import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Bytes, sha256Hex } from '../../src/domain/sha256.js';

/** src/domain/sha256.ts against node:crypto, whose digests idempotency scopes were stored with. */
describe('sha256 without node:crypto', () => {
  const node = (data: string | Uint8Array) => createHash('sha256').update(data).digest();
  // Lengths around the 64-byte block and its 56-byte padding limit, multi-byte UTF-8, a lone
  // surrogate (both encode it as U+FFFD), and a create's scope as idempotency.ts builds it.
  const texts = [
    '',
    'a',
    'x'.repeat(55),
    'x'.repeat(56),
    'x'.repeat(63),
    'x'.repeat(64),
    'x'.repeat(65),
    'x'.repeat(1000),
    'héllo wörld €𝄞',
    'lone \ud800 surrogate',
    JSON.stringify(['partner:0193c4a2-0000-7000-8000-000000000000', 'test', 'POST /v1/partner/invoices', 'startup-probe']),
  ];

  it.each(texts.map((t) => [t.length, t]))('hashes a string of %i characters as node:crypto does', (_n, text) => {
    expect(sha256Hex(text)).toBe(node(text).toString('hex'));
  });

  // 193 lengths twice over: the first 200 hashes of a process are @noble/hashes', the rest node:crypto's.
  it('hashes bytes as node:crypto does, at every length up to three blocks, before and after it switches', () => {
    for (const round of [1, 2]) {
      for (let n = 0; n <= 192; n++) {
        const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
        expect(Buffer.from(sha256Bytes(bytes)).equals(node(bytes)), `round ${round}, length ${n}`).toBe(true);
        expect(sha256Hex(String.fromCharCode(...bytes)), `round ${round}, text of length ${n}`).toBe(node(String.fromCharCode(...bytes)).toString('hex'));
      }
    }
  });
});
