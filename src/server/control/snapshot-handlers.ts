import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Handlers } from '../handler.js';
import { iso } from '../presenters.js';

/** CONTRACT §9 snapshots; the work is in `snapshots/snapshots.ts`, shared with the in-process API. */
export const snapshotHandlers = {
  saveSnapshot: async (input, deps) => ({ status: 201, body: await deps.runtime.snapshots.save(input.body.name) }),
  listSnapshots: async (_input, deps) => ({ status: 200, body: { data: await deps.runtime.snapshots.list() } }),
  restoreSnapshot: async (input, deps) => {
    const snapshot = await deps.runtime.snapshots.restore(input.params.name);
    return { status: 200, body: { status: 'restored', snapshot, now: iso(deps.clock.now()) } };
  },
  exportSnapshot: async (input, deps) => {
    const snapshot = await deps.runtime.snapshots.open(input.params.name);
    // Opened before answering: a snapshot deleted meanwhile is still sent whole. On PostgreSQL the
    // file is a temporary copy of the stored one, removed once sent (or once sending failed).
    let fd: number;
    let size: number;
    try {
      fd = fs.openSync(snapshot.file, 'r');
      size = fs.fstatSync(fd).size;
    } catch (error) {
      snapshot.dispose();
      throw error;
    }
    return {
      status: 200,
      headers: {
        'content-type': 'application/vnd.sqlite3',
        'content-length': String(size),
        'content-disposition': `attachment; filename="${input.params.name}.sqlite"`,
      },
      stream: (res: ServerResponse) => {
        pipeline(fs.createReadStream('', { fd }), res)
          .catch(() => res.destroy())
          .finally(() => snapshot.dispose());
      },
    };
  },
  deleteSnapshot: async (input, deps) => {
    await deps.runtime.snapshots.delete(input.params.name);
    return { status: 204 };
  },
} satisfies Handlers<'saveSnapshot' | 'listSnapshots' | 'restoreSnapshot' | 'exportSnapshot' | 'deleteSnapshot'>;
