import fs from 'node:fs';
import path from 'node:path';
import type { SnapshotInfo } from '../../contract/testing-types.js';
import type { NamedSnapshots } from '../../store/snapshot-engine.js';
import { tempFolder } from '../../store/temp-folder.js';

/**
 * An in-memory emulator's named snapshots, in memory: gone with it, as its data is. They used to be
 * files in a temporary folder of their own, which a SIGKILL left in /tmp, keys and webhook secrets
 * in it (issue 40). Now a snapshot's file exists only while it is in transit (written, then read into
 * memory; written out for a restore or an export, then removed), in a `svc-snapshot-<pid>-…` folder
 * that the next start removes if a kill came in between (../start.ts, once it listens).
 */
export function memorySnapshots(): NamedSnapshots {
  const kept = new Map<string, { info: SnapshotInfo; bytes: Buffer }>();
  const list = () => [...kept.values()].map((k) => k.info).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.name.localeCompare(b.name));
  return {
    save: async (name, write) => {
      const temp = tempFolder();
      try {
        const file = path.join(temp.dir, 'snapshot.sqlite');
        const now = await write(file);
        const bytes = fs.readFileSync(file);
        const info = { name, createdAt: new Date(now).toISOString(), bytes: bytes.length };
        kept.set(name, { info, bytes });
        return info;
      } finally {
        temp.dispose();
      }
    },
    open: async (name) => {
      const snapshot = kept.get(name);
      if (!snapshot) return null;
      const temp = tempFolder();
      const file = path.join(temp.dir, 'snapshot.sqlite');
      try {
        fs.writeFileSync(file, snapshot.bytes, { mode: 0o600 });
      } catch (error) {
        temp.dispose();
        throw error;
      }
      return { info: snapshot.info, file, shownAs: `${name} (kept in memory)`, dispose: temp.dispose };
    },
    list: async () => list(),
    listNow: list,
    delete: async (name) => kept.delete(name),
    deleteNow: (name) => kept.delete(name),
    close: () => kept.clear(),
  };
}
