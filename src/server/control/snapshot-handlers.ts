import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Handlers } from '../handler.js';
import { iso } from '../presenters.js';

/** CONTRACT §9 snapshots; the work is in `snapshots/snapshots.ts`, shared with the in-process API. */
export const snapshotHandlers = {
  saveSnapshot: async (input, deps) => ({ status: 201, body: await deps.runtime.snapshots.save(input.body.name) }),
  listSnapshots: (_input, deps) => ({ status: 200, body: { data: deps.runtime.snapshots.list() } }),
  restoreSnapshot: async (input, deps) => {
    const snapshot = await deps.runtime.snapshots.restore(input.params.name);
    return { status: 200, body: { status: 'restored', snapshot, now: iso(deps.clock.now()) } };
  },
  exportSnapshot: (input, deps) => {
    const file = deps.runtime.snapshots.file(input.params.name);
    // Opened before answering: a snapshot deleted meanwhile is still sent whole.
    const fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    return {
      status: 200,
      headers: {
        'content-type': 'application/vnd.sqlite3',
        'content-length': String(size),
        'content-disposition': `attachment; filename="${input.params.name}.sqlite"`,
      },
      stream: (res: ServerResponse) => {
        pipeline(fs.createReadStream('', { fd }), res).catch(() => res.destroy());
      },
    };
  },
  deleteSnapshot: (input, deps) => {
    deps.runtime.snapshots.delete(input.params.name);
    return { status: 204 };
  },
} satisfies Handlers<'saveSnapshot' | 'listSnapshots' | 'restoreSnapshot' | 'exportSnapshot' | 'deleteSnapshot'>;
