import fs from 'node:fs';
import type { NamedSnapshots } from '../../store/snapshot-engine.js';
import { SnapshotFiles } from './files.js';
import { memorySnapshots } from './memory-snapshots.js';

/**
 * Named snapshots as files beside a file database (or in memory for an in-memory one,
 * memory-snapshots.ts): where an engine keeps none of its own (SQLite's `named: { besideFile }`,
 * store/snapshot-engine.ts).
 */
export function namedFiles(databaseFile: string): NamedSnapshots {
  if (databaseFile === ':memory:') return memorySnapshots();
  const files = SnapshotFiles.for(databaseFile);
  return {
    save: async (name, write) => {
      const scratch = files.scratch();
      const now = await write(scratch);
      try {
        return files.commit(scratch, name, now);
      } catch (error) {
        fs.rmSync(scratch, { force: true });
        throw error;
      }
    },
    open: async (name) => {
      const info = files.info(name);
      const file = files.file(name);
      return info && { info, file, shownAs: file, dispose: () => {} };
    },
    list: async () => files.list(),
    listNow: () => files.list(),
    delete: async (name) => files.delete(name),
    deleteNow: (name) => files.delete(name),
    close: () => {},
  };
}
