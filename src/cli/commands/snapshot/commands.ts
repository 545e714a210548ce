import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import { snapshotListView, snapshotView, type SnapshotData } from '../../views/snapshot.js';
import type { deleteSnapshotSpec, listSnapshotsSpec, restoreSnapshotSpec, saveSnapshotSpec } from './index.js';

/** `svc snapshot save <name>`: POST /__emulator/snapshots. */
export const saveSnapshotCommand: Handler<typeof saveSnapshotSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, `Saving snapshot ${args.name}`, client.saveSnapshot({ body: { name: args.name } }));
  return { data: res.data, human: (c) => `${c.green('saved')} ${snapshotView(c, res.data)}` };
};

/** `svc snapshot restore <name>`: POST /__emulator/snapshots/{name}/restore. */
export const restoreSnapshotCommand: Handler<typeof restoreSnapshotSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, `Restoring snapshot ${args.name}`, client.restoreSnapshot({ params: { name: args.name }, timeoutMs: 120_000 }));
  return { data: res.data, human: (c) => `${c.green('restored')} ${snapshotView(c, res.data.snapshot)}; the clock is at ${res.data.now}` };
};

/** `svc snapshot list`: GET /__emulator/snapshots. */
export const listSnapshotsCommand: Handler<typeof listSnapshotsSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Listing snapshots', client.listSnapshots());
  return { data: res.data, human: (c) => snapshotListView(c, res.data.data) };
};

/** `svc snapshot delete <name>`: DELETE /__emulator/snapshots/{name}. */
export const deleteSnapshotCommand: Handler<typeof deleteSnapshotSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  await controlPlane(ctx, target, `Deleting snapshot ${args.name}`, client.deleteSnapshot({ params: { name: args.name } }));
  const data: { deleted: string } = { deleted: args.name };
  return { data, human: (c) => `${c.green('deleted')} ${args.name}` };
};

export type { SnapshotData };
