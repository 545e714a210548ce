import type { SnapshotInfo } from '../contract/testing-types.js';
import { UserError } from '../errors.js';
import type { HeldBack } from './sqlite/snapshots.js';

/** What a restore does around the replacement of the rows (snapshots.ts). */
export interface ReplaceHooks {
  /** Quiets the emulator (SnapshotDeps.quiesce). */
  before(): void;
  /** Puts the clock at the snapshot's time, when it recorded one. */
  after(clockAt: number | undefined): void;
}

/** A snapshot as a file to read, and what to do once it was read (remove a temporary copy). */
export interface SnapshotFile {
  info: SnapshotInfo;
  file: string;
  /** How messages name it: the file itself on SQLite; on PostgreSQL the name (the file is a temporary copy). */
  shownAs: string;
  dispose(): void;
}

/**
 * What differs between the engines (sqlite/snapshot-engine.ts, postgres/snapshot-engine.ts); names, the queue,
 * the untrusted-file checks and the quiet around a restore are snapshots.ts's, shared. The portable
 * file is SQLite's on both engines.
 */
export interface SnapshotEngine {
  /** A consistent copy of the state to the new file `file`, with `clockKey` = `now` in its meta; nothing left there on failure. */
  copyTo(file: string, clockKey: string, now: number): Promise<void>;
  /** The migrations this store's schema is at: a file recording the same needs no migrating. */
  migrations(): string[];
  /**
   * Every row replaced by the checked file's (this release's schema), calling `around.before` in the
   * same turn as the replacement begins and `around.after` with the file's `clockKey` entry in the
   * turn it ends; answers what it held back.
   */
  replaceAll(file: string, hold: boolean, clockKey: string, around: ReplaceHooks): Promise<HeldBack>;
  /**
   * Named snapshots: the engine's own (PostgreSQL's rows, shared by every replica), or the database
   * file they are kept beside as files (SQLite's; ':memory:' for a temporary folder of their own).
   */
  named: NamedSnapshots | { besideFile: string };
}

export interface NamedSnapshots {
  /** Stores the state under `name` (a checked name): `write` puts it in the file it is given and answers its emulator time. */
  save(name: string, write: (file: string) => Promise<number>): Promise<SnapshotInfo>;
  /** Snapshot `name` as a file, or null when there is none. */
  open(name: string): Promise<SnapshotFile | null>;
  /** Every snapshot, newest first, then by name. */
  list(): Promise<SnapshotInfo[]>;
  /** For the synchronous in-process API: SQLite's folder as it is; PostgreSQL's list this process keeps. */
  listNow(): SnapshotInfo[];
  /** Deletes snapshot `name`; whether there was one. */
  delete(name: string): Promise<boolean>;
  /** The synchronous in-process delete: whether there was one (on PostgreSQL, known to this process). */
  deleteNow(name: string): boolean;
  close(): void;
}

/**
 * A value of an imported file the engine cannot store as svc would have (CONTRACT §8: a stranger's
 * file): refused with one line naming the table and column (exit 1 at `svc dev --snapshot`, 422
 * `snapshot_invalid` through the API), and nothing is changed. PostgreSQL's text cannot hold U+0000,
 * nor its bigint a number beyond 2^53 exactly.
 */
export class SnapshotValueRefused extends UserError {
  constructor(file: string, detail: string) {
    super(`snapshot ${file} ${detail}; nothing was changed`, 'snapshot_invalid');
  }
}
