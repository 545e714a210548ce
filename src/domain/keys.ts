import { createHash } from 'node:crypto';
import { defaultRandom, type Random } from './random.js';
import type { Environment } from './environment.js';

/** CONTRACT §1: partner keys `pt_test_`/`pt_live_`, merchant keys `test_`/`live_`, then 32 base62. */
export type KeyKind = 'partner' | 'merchant';

export interface ParsedKey {
  kind: KeyKind;
  environment: Environment;
}

const KEY_PATTERN = /^(pt_)?(test|live)_[0-9A-Za-z]{32}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Reads kind and environment off a key's prefix; null when the key is not well-formed. */
export function parseKey(key: string): ParsedKey | null {
  const m = KEY_PATTERN.exec(key);
  if (!m) return null;
  return { kind: m[1] ? 'partner' : 'merchant', environment: m[2] as Environment };
}

export function keyPrefix(kind: KeyKind, environment: Environment): string {
  return kind === 'partner' ? `pt_${environment}_` : `${environment}_`;
}

/** `length` characters drawn uniformly from base62 (rejection sampling, no modulo bias). */
export function randomBase62(length: number, random: Random = defaultRandom): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random.bytes(length + 16)) {
      // 248 = 62 * 4: bytes at or above it would favour the first characters.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A fresh key: the prefix of its kind and environment, then 32 base62 characters. */
export function generateKey(kind: KeyKind, environment: Environment, random: Random = defaultRandom): string {
  return keyPrefix(kind, environment) + randomBase62(32, random);
}

/** A fresh webhook signing secret, `whsec_` and 32 base62 characters. */
export function generateSecret(random: Random = defaultRandom): string {
  return `whsec_${randomBase62(32, random)}`;
}

/** Keys are stored as their SHA-256 only (CONTRACT §1). */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What listings show of a key: enough to recognise it, not enough to use it. */
export function keyHint(key: string): string {
  const prefix = key.slice(0, key.lastIndexOf('_') + 1);
  return `${prefix}${key.slice(prefix.length, prefix.length + 4)}…${key.slice(-4)}`;
}
