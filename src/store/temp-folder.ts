import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorCode, errorMessage } from '../domain/caught.js';
import { UserError } from '../errors.js';
import { removeTempFolders } from './leftovers.js';

/** Our temporary folders are `svc-snapshot-<pid>-…` (the copy of a file being imported) and `svc-snapshots-<pid>-…`: the pid says whose. */
export const TEMP_PREFIX = 'svc-snapshot-';

/** A private temporary folder and how to remove it. */
export interface TempFolder {
  dir: string;
  dispose(): void;
}

/**
 * The system's temporary folder cannot hold ours (a container's read-only /tmp: EROFS, a full one,
 * no permission). A UserError naming the folder and the cause: `svc dev --snapshot` stops with one
 * line, and the control plane answers 507 `temporary_folder_unavailable` (http/respond.ts), not a 500.
 */
export class TempFolderError extends UserError {
  constructor(
    readonly folder: string,
    cause: unknown,
  ) {
    const why = errorCode(cause) === 'EROFS' ? 'it is on a read-only file system' : (errorCode(cause) ?? errorMessage(cause));
    super(
      `cannot make a temporary folder in ${folder} (${why}), which a snapshot in transit needs; point TMPDIR at a writable folder`,
      'temporary_folder_unavailable',
    );
  }
}

/**
 * A private folder in the system's temporary folder for a snapshot file in transit (an older export
 * being migrated, an in-memory emulator's or a PostgreSQL snapshot written out to be stored, restored
 * or downloaded). Named `svc-snapshot-<pid>-…`: after a kill, the next start removes it (`leftovers.ts`).
 */
export function tempFolder(): TempFolder {
  removeTempFolders();
  const tmp = os.tmpdir();
  let dir: string;
  try {
    dir = fs.mkdtempSync(path.join(tmp, `${TEMP_PREFIX}${process.pid}-`));
  } catch (error) {
    throw new TempFolderError(tmp, error);
  }
  return { dir, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
