import { fillFromOs } from './os-random.js';

/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids of rows that are created
 * at a high rate (invoices, deliveries) use it because consecutive ids sort together: their unique
 * indexes grow at the right edge instead of dirtying a random page per insert, which is most of
 * what a commit writes. They are still UUIDs, which is all the interface promises.
 */
const pool = Buffer.alloc(16 * 256);
let offset = pool.length;
let lastMs = 0;

export function uuidv7(now = Date.now()): string {
  if (offset === pool.length) {
    fillFromOs(pool);
    offset = 0;
  }
  const b = pool.subarray(offset, offset + 16);
  offset += 16;
  // Never go backwards when the wall clock does (NTP steps): order is what makes these cheap.
  const ms = Math.max(now, lastMs);
  lastMs = ms;
  b.writeUIntBE(ms, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
