import * as z from 'zod';
import { SNAPSHOT_NAME, SNAPSHOT_NAME_MESSAGE } from '../snapshot-name.js';
import type { SnapshotInfo } from '../testing-types.js';
import type { Equal } from '../type-equal.js';
import { lazyRecord, once } from './lazy.js';

/** Snapshots (CONTRACT §9, extension): the request body and the answers. */

const snapshotName = () =>
  z
    .string({ error: 'name is required.' })
    .regex(SNAPSHOT_NAME, { error: SNAPSHOT_NAME_MESSAGE })
    .meta({ description: 'Letters, digits, `.`, `_` and `-`, starting with a letter or digit; at most 64.' });

// The answers are built on first read, not when the request schemas load (./lazy.ts): only the
// OpenAPI document and the response checker read them.
const snapshot = once(() =>
  z
    .object({
      name: z.string(),
      createdAt: z.iso.datetime().meta({ description: 'Emulator time when it was saved.' }),
      bytes: z.number().int().meta({ description: 'Size of the snapshot (an SQLite database file).' }),
    })
    .meta({ id: 'Snapshot' }),
);

/** Thunks: REQUEST_SCHEMAS builds each on first use (./lazy.ts). */
export const SNAPSHOT_REQUESTS = {
  SaveSnapshotRequest: () => z.object({ name: snapshotName() }),
};

export const SNAPSHOT_SCHEMAS = lazyRecord({
  Snapshot: snapshot,
  SnapshotList: () => z.object({ data: z.array(snapshot()) }).meta({ id: 'SnapshotList', description: 'Newest first.' }),
  SnapshotRestored: () =>
    z
      .object({
        status: z.literal('restored'),
        snapshot: snapshot(),
        now: z.iso.datetime().meta({ description: 'Emulator time after the restore: the time the snapshot was saved at.' }),
      })
      .meta({ id: 'SnapshotRestored' }),
});

/** The schema produces exactly the public SnapshotInfo (testing-types.ts): a field added to one only does not compile. */
const snapshotMatches: Equal<z.output<ReturnType<typeof snapshot>>, SnapshotInfo> = true;
void snapshotMatches;
