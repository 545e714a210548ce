/**
 * What our own tests may reach inside a running emulator and the public `Emulator` type does not
 * show: its database. Kept out of the public types on purpose (users drive the emulator over HTTP,
 * and a `Store` would drag better-sqlite3's and kysely's types into their compile).
 */
import type { Store } from '../store/sqlite/store.js';
import type { RequestJournal } from './journal/journal.js';
import type { Emulator } from './start.js';
import type { Streams } from './streams.js';

export interface EmulatorInternals {
  /** SQLite's store; null on PostgreSQL. */
  readonly store: Store | null;
  /** Runs one SQL statement on the emulator's database, whichever engine: rows as objects (tests only). */
  query(sqlText: string): Promise<Record<string, unknown>[]>;
  /** The bounded event streams, with their counts of work done (CONTRACT §8). */
  readonly streams: Streams;
  readonly journal: RequestJournal;
}

const internals = new WeakMap<Emulator, EmulatorInternals>();

/** Records `emulator`'s internals; returns it unchanged. Only `startEmulator` calls this. */
export function attachInternals<E extends Emulator>(emulator: E, parts: EmulatorInternals): E {
  internals.set(emulator, parts);
  return emulator;
}

/** The database, streams and journal of an emulator started by `startEmulator` (tests only). */
export function internalsOf(emulator: Emulator): EmulatorInternals {
  const found = internals.get(emulator);
  if (!found) throw new Error('internalsOf: not an emulator returned by startEmulator');
  return found;
}
