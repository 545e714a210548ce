import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeTempFolders } from './leftovers.js';

/** Our temporary folders are `svc-snapshot-<pid>-…` (the copy of a file being imported) and `svc-snapshots-<pid>-…`: the pid says whose. */
export const TEMP_PREFIX = 'svc-snapshot-';

/** A private temporary folder and how to remove it. */
export interface TempFolder {
  dir: string;
  dispose(): void;
}

/**
 * A private folder in the system's temporary folder for a snapshot file in transit (an older export
 * being migrated, a PostgreSQL snapshot written out to be stored, restored or downloaded). Named
 * `svc-snapshot-<pid>-…`: after a kill, the next start removes it (`leftovers.ts`).
 */
export function tempFolder(): TempFolder {
  removeTempFolders();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
  return { dir, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
