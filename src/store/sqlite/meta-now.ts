import type BetterSqlite3 from 'better-sqlite3';

/**
 * `meta` read and written at once, synchronously, on a SQLite connection: for the few writes that
 * must land in the same turn as what surrounds them (a snapshot's clock entry, written into the copy
 * or read back during a restore's one transaction), outside the asynchronous repositories.
 */
export function setMetaNow(sqlite: BetterSqlite3.Database, key: string, value: unknown): void {
  sqlite.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
}

/**
 * The number stored under `key`, or undefined when there is none; another value is an error naming
 * the key (as the repositories' getMeta: a restored file is untrusted, CONTRACT §8).
 */
export function numberInMeta(sqlite: BetterSqlite3.Database, key: string): number | undefined {
  const text = sqlite.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key);
  if (text === undefined) return undefined;
  const value: unknown = typeof text === 'string' ? JSON.parse(text) : undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`svc: the meta entry ${key} does not hold what svc stores there`);
  return value;
}
