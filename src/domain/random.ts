import { createHash } from 'node:crypto';
import { formatUuid, UuidV7Generator } from './ids.js';
import { fillFromOs } from './os-random.js';

/**
 * Where an emulator's generated values come from: ids, keys, webhook secrets, transaction hashes.
 * By default the operating system's randomness; with a seed (CONTRACT §9 "Deterministic runs") a
 * stream derived from it, so that two emulators with the same seed, clock and requests answer with
 * the same bytes.
 */
export interface Random {
  bytes(n: number): Buffer;
  /** A version 4 UUID. */
  uuid(): string;
  /**
   * A version 7 UUID at `ms` (see ids.ts for why some rows use them): greater than every earlier one
   * this source made, also within a millisecond. Draws 16 bytes, as `uuid()` does.
   */
  uuidv7(ms: number): string;
}

abstract class Base implements Random {
  private readonly v7 = new UuidV7Generator();
  abstract bytes(n: number): Buffer;
  abstract uuid(): string;
  uuidv7(ms: number): string {
    return this.v7.next(ms, this.bytes(16));
  }
}

/** The operating system's randomness (./os-random.ts), drawn from a pool refilled 4 KiB at a time (cheap per id). */
class CryptoRandom extends Base {
  private readonly pool = Buffer.alloc(4096);
  private offset = this.pool.length;
  bytes(n: number): Buffer {
    if (n > this.pool.length) return fillFromOs(Buffer.alloc(n));
    if (this.offset + n > this.pool.length) {
      fillFromOs(this.pool);
      this.offset = 0;
    }
    const out = Buffer.from(this.pool.subarray(this.offset, this.offset + n));
    this.offset += n;
    return out;
  }
  uuid(): string {
    return uuidV4(this.bytes(16));
  }
}

/**
 * SHA-256 in counter mode over the seed and an epoch: the same seed and epoch give the same stream.
 * The epoch is the number of earlier starts of a seeded emulator on the database (kept in it), so a
 * restart on a file continues with fresh values instead of repeating ids already stored.
 */
class SeededRandom extends Base {
  private block = Buffer.alloc(0);
  private offset = 0;
  private counter = 0;
  constructor(private readonly prefix: string) {
    super();
  }
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let written = 0; written < n; ) {
      if (this.offset === this.block.length) {
        this.block = createHash('sha256')
          .update(`${this.prefix}:${this.counter++}`)
          .digest();
        this.offset = 0;
      }
      const take = Math.min(n - written, this.block.length - this.offset);
      this.block.copy(out, written, this.offset, this.offset + take);
      this.offset += take;
      written += take;
    }
    return out;
  }
  uuid(): string {
    return uuidV4(this.bytes(16));
  }
}

/**
 * Math.random, for values that must differ from one another but need not be secret: the CLI's
 * Idempotency-Keys. V8 seeds each process's generator from the OS; node:crypto is not loaded (it
 * was ~5 ms of every `svc invoices create`). Never for ids, keys or secrets of the emulator.
 */
class MathRandom extends Base {
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(Math.random() * 256);
    return out;
  }
  uuid(): string {
    return uuidV4(this.bytes(16));
  }
}

export function cryptoRandom(): Random {
  return new CryptoRandom();
}

/** Distinct values without node:crypto: see MathRandom. */
export const nonSecretRandom: Random = new MathRandom();

export function seededRandom(seed: number, epoch: number): Random {
  return new SeededRandom(`svc-seed:${seed}:${epoch}`);
}

/** Sixteen random bytes as a version 4 UUID. */
function uuidV4(b: Buffer): string {
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return formatUuid(b);
}

/** The process-wide default, for code that runs outside an emulator (the CLI's own secrets). */
export const defaultRandom: Random = cryptoRandom();
