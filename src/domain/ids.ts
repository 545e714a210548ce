import { fillFromOs } from './os-random.js';

/**
 * Whether `s` has a UUID's form: 8-4-4-4-12 hexadecimal digits, either case, whatever its version
 * bits (`/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i`, and zod's `guid`). Read
 * by hand: it runs on the first request of every process (an invoice's id, the create's body), where
 * compiling that expression cost ~0.08 ms (bench #13). test/unit/ids.test.ts holds the two alike.
 */
export function isUuid(s: string): boolean {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
    } else if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Ids of rows that are listed
 * newest first or created at a high rate (merchants, invoices, deliveries) use it because
 * consecutive ids sort together: their unique indexes grow at the right edge instead of dirtying a
 * random page per insert, and a list ordered by (createdAt, id) shows one generator's rows of one
 * millisecond in the order they were made (CONTRACT §12). They are still UUIDs, which is all the
 * interface promises.
 *
 * Monotonic within a millisecond (RFC 9562 §6.2, "monotonic random"): an id made in the same
 * millisecond as the previous one (or while the clock stands still or steps back) is the previous
 * id's 74 random bits plus a random increment of 1 to 2^32, so ids of one generator sort, as
 * strings, in the order they were made even with a frozen clock.
 */
export class UuidV7Generator {
  private lastMs = 0;
  private readonly last = Buffer.alloc(16);

  /**
   * The next id at `ms`, from 16 freshly drawn bytes (`b`, written into): always 16, whether they
   * become the random bits or the increment, so a seeded stream stays aligned.
   */
  next(ms: number, b: Buffer): string {
    // Never go backwards when the clock does (NTP steps, a reset clock): order is the point.
    let at = Math.max(ms, this.lastMs);
    if (at === this.lastMs && addToRandomBits(this.last, 1 + b.readUInt32BE(12))) {
      this.last.copy(b);
    } else {
      // A new millisecond, or (never in practice) the 74 bits overflowed: RFC 9562 lets the
      // timestamp move on by one, and the bits start afresh.
      if (at === this.lastMs) at += 1;
      b.writeUIntBE(at, 0, 6);
      b[6] = (b[6]! & 0x0f) | 0x70;
      b[8] = (b[8]! & 0x3f) | 0x80;
      b.copy(this.last);
    }
    this.lastMs = at;
    return formatUuid(b);
  }
}

/**
 * Adds `n` (below 2^53) to the 74 random bits of a v7 UUID's bytes, in place, leaving the version
 * and variant bits as they are. False (and `id` unusable) when the sum does not fit in 74 bits.
 */
function addToRandomBits(id: Buffer, n: number): boolean {
  let carry = n;
  // From the last byte up: bytes 15…9 (8 bits each), 8 (6 bits under the variant), 7 (8), 6 (4 under the version).
  for (let i = 15; i >= 6; i--) {
    const bits = i === 8 ? 6 : i === 6 ? 4 : 8;
    const size = 2 ** bits;
    const mask = size - 1;
    const sum = (id[i]! & mask) + (carry % size);
    id[i] = (id[i]! & ~mask & 0xff) | (sum & mask);
    carry = Math.floor(carry / size) + (sum >= size ? 1 : 0);
  }
  return carry === 0;
}

/** Sixteen bytes in the 8-4-4-4-12 hex form. */
export function formatUuid(b: Buffer): string {
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const pool = Buffer.alloc(16 * 256);
let offset = pool.length;
const processIds = new UuidV7Generator();

/** A v7 id at `now` from the operating system's randomness, monotonic within this process. */
export function uuidv7(now = Date.now()): string {
  if (offset === pool.length) {
    fillFromOs(pool);
    offset = 0;
  }
  const b = Buffer.from(pool.subarray(offset, offset + 16));
  offset += 16;
  return processIds.next(now, b);
}
