import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * SHA-256 for what a create hashes on its way (the idempotency scope and fingerprint, Tron's and
 * Solana's deposit addresses) and a start's keys (./keys.ts). Loading node:crypto is ~3 ms of CPU
 * and ~20 modules, which an emulator's first create paid, in-process in every test file that starts
 * one (bench #13): the first hashes of a process are @noble/hashes' (loaded already, for the keys).
 * Its JavaScript is slower per hash than node:crypto's OpenSSL, though (~3 µs of a create's ~170 µs
 * under load, bench #1): a process that has hashed this much is busy, and loads node:crypto for the
 * rest. The digests are SHA-256's either way, byte for byte (test/unit/sha256.test.ts).
 */
const NOBLE_HASHES = 200;

let hashed = 0;
let native: ((data: Uint8Array | string) => Buffer) | undefined;

function digest(data: Uint8Array | string): Uint8Array {
  if (native) return native(data);
  if (++hashed > NOBLE_HASHES) {
    const { createHash } = process.getBuiltinModule('node:crypto');
    native = (d) => createHash('sha256').update(d).digest();
    return native(data);
  }
  return nobleSha256(typeof data === 'string' ? utf8ToBytes(data) : data);
}

export const sha256Bytes = (bytes: Uint8Array): Uint8Array => digest(bytes);

/** SHA-256 of a string's UTF-8 bytes, as lowercase hex. */
export const sha256Hex = (text: string): string => bytesToHex(digest(text));
