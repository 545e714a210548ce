import { sha256Hex } from './sha256.js';
import { defaultRandom, type Random } from './random.js';
import type { Environment } from './environment.js';

/** CONTRACT §1: partner keys `pt_test_`/`pt_live_`, merchant keys `test_`/`live_`, then 32 base62. */
export type KeyKind = 'partner' | 'merchant';

export interface ParsedKey {
  kind: KeyKind;
  environment: Environment;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Reads kind and environment off a key's prefix; null when the key is not well-formed:
 * `/^(pt_)?(test|live)_[0-9A-Za-z]{32}$/`, read by hand (that expression, compiled at the first key
 * of a process, was ~0.15 ms of every start; test/unit/keys.test.ts holds the two alike).
 */
export function parseKey(key: string): ParsedKey | null {
  const partner = key.startsWith('pt_');
  const at = partner ? 3 : 0;
  const environment = key.startsWith('test_', at) ? 'test' : key.startsWith('live_', at) ? 'live' : null;
  if (environment === null || key.length !== at + 5 + 32) return null;
  for (let i = at + 5; i < key.length; i++) if (!isBase62(key.charCodeAt(i))) return null;
  return { kind: partner ? 'partner' : 'merchant', environment };
}

/** 0-9, A-Z, a-z. */
const isBase62 = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

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

/**
 * A fresh key: the prefix of its kind and environment, then 32 base62 characters. `random` (a seeded
 * source in deterministic runs) is used for test keys only: a live key drawn from a seed is the same
 * on every machine that uses the seed, hence guessable by anyone who knows it (issue 22).
 */
export function generateKey(kind: KeyKind, environment: Environment, random: Random = defaultRandom): string {
  return keyPrefix(kind, environment) + randomBase62(32, environment === 'live' ? defaultRandom : random);
}

/**
 * A fresh webhook signing secret, `whsec_` and 32 base62 characters, always from the operating
 * system's randomness, seed or not: a secret that every machine with the seed can derive signs
 * nothing (issue 22). Signatures are not part of the byte-identical answers of a seeded run.
 */
export function generateSecret(): string {
  return `whsec_${randomBase62(32, defaultRandom)}`;
}

/**
 * Keys are stored as their SHA-256 only (CONTRACT §1). @noble/hashes' (audited, bundled for the
 * deposit addresses), not node:crypto's: `svc dev` hashes its default keys before it is ready, and
 * loading node:crypto was ~4 ms of that (./os-random.ts). The server hashes a key once, then caches it.
 */
export function hashKey(key: string): string {
  let hash = recentHashes.get(key);
  if (hash === undefined) {
    hash = sha256Hex(key);
    if (recentHashes.size >= RECENT_HASHES) recentHashes.delete(recentHashes.keys().next().value!);
    recentHashes.set(key, hash);
  }
  return hash;
}

/**
 * The last keys hashed, and their hashes: a start stores its default keys, and the first request
 * with one of them looks it up by the same hash; in cold JavaScript a hash is ~0.2 ms of that first
 * request (bench #13). The keys are in memory anyway (the emulator's own, or a request's).
 */
const RECENT_HASHES = 16;
const recentHashes = new Map<string, string>();

/** What listings show of a key: enough to recognise it, not enough to use it. */
export function keyHint(key: string): string {
  const prefix = key.slice(0, key.lastIndexOf('_') + 1);
  return `${prefix}${key.slice(prefix.length, prefix.length + 4)}…${key.slice(-4)}`;
}
