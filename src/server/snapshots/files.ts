import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SNAPSHOT_NAME } from '../../contract/snapshot-name.js';
import type { SnapshotInfo } from '../../contract/testing-types.js';
import { removePartials, removeTempFolders } from '../../store/leftovers.js';

const SUFFIX = '.sqlite';

/**
 * Where snapshots live: beside a file database in `<file>-snapshots/` (they outlive the process, like
 * the database they copy), or for an in-memory emulator in a private temporary folder removed at stop.
 * Each snapshot is one SQLite database file, mode 0600 (it holds keys and webhook secrets). Its
 * creation time is the file's mtime, set to the emulator's clock: the file alone says it all.
 */
export class SnapshotFiles {
  /** An in-memory emulator's folder, once made. */
  private made: string | null = null;

  /** `fixed`: the folder beside a file database; null for an in-memory emulator's temporary one. */
  private constructor(private readonly fixed: string | null) {}

  /** A file database's folder loses the leftovers of saves a kill interrupted (`leftovers.ts`). */
  static for(databaseFile: string): SnapshotFiles {
    if (databaseFile === ':memory:') return new SnapshotFiles(null);
    const dir = `${databaseFile}-snapshots`;
    removePartials(dir);
    return new SnapshotFiles(dir);
  }

  /**
   * The folder. An in-memory emulator's is made the first time a snapshot needs it: making and
   * removing it at every start and stop cost ~1-3 ms of each `svc exec` (bench #16).
   */
  private get dir(): string {
    if (this.fixed !== null) return this.fixed;
    if (this.made === null) {
      removeTempFolders();
      this.made = fs.mkdtempSync(path.join(os.tmpdir(), `svc-snapshots-${process.pid}-`));
    }
    return this.made;
  }

  /** Whether no folder was made yet (in memory, no snapshot taken): there is nothing to list. */
  private get none(): boolean {
    return this.fixed === null && this.made === null;
  }

  file(name: string): string {
    return path.join(this.dir, `${name}${SUFFIX}`);
  }

  /** A fresh path in the folder to write a snapshot to, renamed into place once complete. */
  scratch(): string {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return path.join(this.dir, `.partial-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}${SUFFIX}`);
  }

  /** Moves a completed snapshot into place under `name` (replacing one of that name), dated `at`. */
  commit(scratch: string, name: string, at: number): SnapshotInfo {
    fs.chmodSync(scratch, 0o600);
    fs.utimesSync(scratch, new Date(at), new Date(at));
    fs.renameSync(scratch, this.file(name));
    return this.info(name)!;
  }

  info(name: string): SnapshotInfo | null {
    if (this.none) return null;
    try {
      const stat = fs.statSync(this.file(name));
      return { name, createdAt: stat.mtime.toISOString(), bytes: stat.size };
    } catch {
      return null;
    }
  }

  /** Newest first, then by name. */
  list(): SnapshotInfo[] {
    if (this.none) return [];
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.endsWith(SUFFIX) && SNAPSHOT_NAME.test(n.slice(0, -SUFFIX.length)))
      .map((n) => this.info(n.slice(0, -SUFFIX.length)))
      .filter((i): i is SnapshotInfo => i !== null)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.name.localeCompare(b.name));
  }

  delete(name: string): boolean {
    if (this.none) return false;
    try {
      fs.unlinkSync(this.file(name));
      return true;
    } catch {
      return false;
    }
  }

  /** An in-memory emulator's snapshots go with it. */
  close(): void {
    if (this.made !== null) fs.rmSync(this.made, { recursive: true, force: true });
    this.made = null;
  }
}

/** What an imported snapshot file brought (CONTRACT §8: a stranger's file); part of the public API. */
export interface Imported {
  /** Webhook URLs of its configurations and of the deliveries it left pending (at most 50). */
  webhookUrls: string[];
  /** Deliveries it left pending or retrying: kept, not sent until resent. */
  heldDeliveries: number;
}
