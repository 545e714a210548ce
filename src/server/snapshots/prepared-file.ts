import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '../../store/sqlite.js';
import { openStore } from '../../store/sqlite/store.js';
import type { SnapshotEngine } from '../../store/snapshot-engine.js';
import { checkSnapshotValues } from './file-values.js';
import { tempFolder } from '../../store/temp-folder.js';
import { checkSnapshotFile, checkSnapshotSchema } from './untrusted.js';

/**
 * A snapshot file ready for either engine to read, with this release's schema, checked first to be
 * exactly one svc wrote (`untrusted.ts`; refused in one line otherwise). A file from an earlier svc
 * is migrated on a copy in a private temporary folder, removed by `dispose()` or, after a kill, by
 * the next start (`leftovers.ts`).
 *
 * `imported` (`svc dev --snapshot`, CONTRACT §8: a stranger's file) is always prepared on a copy
 * (the user's file is never changed): its values held to the API's limits (`file-values.ts`), its
 * webhook configurations disabled, so that new events go to no URL and with no headers the file
 * chose until the user enables them (`svc webhook set --enable`). Both engines import what this
 * answers: the checks are engine-neutral. A named snapshot is the emulator's own save, restored as it
 * is (the values' scan would double a restore's time: docs/decisions.md).
 */
export async function preparedFile(engine: SnapshotEngine, file: string, imported: boolean): Promise<{ file: string; dispose(): void }> {
  checkSnapshotFile(file);
  const older = (await checkSnapshotSchema(file)).join() !== engine.migrations().join();
  if (!older && !imported) return { file, dispose: () => {} };
  const temp = tempFolder();
  const copy = path.join(temp.dir, 'snapshot.sqlite');
  try {
    fs.copyFileSync(file, copy);
    if (older) (await openStore({ file: copy })).close();
    if (imported) {
      checkSnapshotValues(copy);
      disableWebhooks(copy);
    }
  } catch (error) {
    temp.dispose();
    // The error names the temporary copy: name the file the user gave.
    if (error instanceof Error) error.message = error.message.replaceAll(copy, file);
    throw error;
  }
  return { file: copy, dispose: temp.dispose };
}

/** Every webhook configuration of a (copied, checked) file, disabled. */
function disableWebhooks(file: string): void {
  const db = openSqlite(file, { fileMustExist: true });
  try {
    db.pragma('trusted_schema = OFF');
    db.prepare('UPDATE webhook_configs SET enabled = 0').run();
  } finally {
    db.close();
  }
}
