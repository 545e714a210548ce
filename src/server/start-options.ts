import { defaultConfig, type EmulatorConfig } from '../config/defaults.js';
import { allowedHostProblem } from '../domain/allowed-hosts.js';
import { parseWebhookAllow } from '../domain/webhook-allow.js';
import { cryptoRandom, type Random, seededRandom } from '../domain/random.js';
import { isFiniteNumber, type StoreDb } from '../store/db.js';
import type { EmulatorConfigInput, StartEmulatorOptions } from './emulator-api.js';
import { MAX_JOURNAL_SIZE } from './journal/journal.js';

/**
 * `startEmulator`'s options and settings, resolved and checked before anything starts: a bad one is
 * a TypeError naming the setting (the CLI's flags and the config file name it the same way).
 */
export function resolveConfig(options: StartEmulatorOptions): EmulatorConfig {
  const config = mergeConfig(options.config);
  if (options.allowedHosts) config.allowedHosts = [...config.allowedHosts, ...options.allowedHosts];
  for (const entry of config.allowedHosts) {
    const problem = allowedHostProblem(entry);
    if (problem) throw new TypeError(`allowedHosts: ${problem}`);
  }
  // Checked before anything opens: a bad entry is a TypeError naming the setting.
  parseWebhookAllow(config.webhookAllow);
  // As the config file's rule: a short token is a guessable one (CONTRACT §12).
  const token = config.controlToken;
  if (token !== null && (typeof token !== 'string' || token.length < 16 || token.length > 255)) {
    throw new TypeError('controlToken must be a string of 16 to 255 characters');
  }
  return config;
}

/**
 * The local chains asked for (CONTRACT §14): `startEmulator({ chains })` over the config's
 * `chains: true`; null for none.
 */
export function chainsWanted(options: StartEmulatorOptions, config: EmulatorConfig): { confirmations: number } | null {
  const given = options.chains ?? config.localChains;
  if (!given) return null;
  const confirmations = typeof given === 'object' && given.confirmations !== undefined ? given.confirmations : config.chainConfirmations;
  if (!Number.isInteger(confirmations) || confirmations < 1 || confirmations > 64) {
    throw new TypeError(`chains.confirmations must be a whole number from 1 to 64, not ${confirmations}`);
  }
  if (options.database !== undefined) throw new TypeError('chains need SQLite (db), not a PostgreSQL database: one process owns the nodes');
  return { confirmations };
}

/** Checked when the journal is built, after the database opened (as before this file existed). */
export function checkJournalSize(config: EmulatorConfig): void {
  if (!Number.isInteger(config.journalSize) || config.journalSize < 0 || config.journalSize > MAX_JOURNAL_SIZE) {
    throw new TypeError(`journalSize must be a whole number from 0 to ${MAX_JOURNAL_SIZE}`);
  }
}

function mergeConfig(partial: EmulatorConfigInput = {}): EmulatorConfig {
  const base = defaultConfig();
  return {
    ...base,
    ...partial,
    chains: { ...base.chains, ...partial.chains },
    keys: { test: { ...partial.keys?.test }, live: { ...partial.keys?.live } },
    webhooks: { ...base.webhooks, ...partial.webhooks },
  };
}

/** Where a clock start is invalid, say so as a setting: the CLI's flag and the config name it. */
export function clockStartOf(value: string | number | Date | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms) || (typeof value === 'string' && !/^\d{4}-\d\d-\d\dT/.test(value))) {
    throw new TypeError(`clockStart must be an ISO 8601 time such as 2030-01-01T00:00:00Z, not ${JSON.stringify(value)}`);
  }
  return ms;
}

const RANDOM_EPOCH = 'random_epoch';

/**
 * A seeded source continues where the last seeded start on this database left off (its epoch), so
 * a restart never repeats ids already stored; a fresh database always starts at epoch 0.
 */
export async function randomFor(db: StoreDb, seed: number | null | undefined): Promise<Random> {
  if (seed === undefined || seed === null) return cryptoRandom();
  if (!Number.isSafeInteger(seed) || seed < 0) throw new TypeError(`seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not ${seed}`);
  // Read and moved on in one transaction: two starts on one database never share an epoch.
  const epoch = await db.transaction(async (tx) => {
    const last = (await tx.meta.getMeta(RANDOM_EPOCH, isFiniteNumber)) ?? 0;
    await tx.meta.setMeta(RANDOM_EPOCH, last + 1);
    return last;
  });
  return seededRandom(seed, epoch);
}
