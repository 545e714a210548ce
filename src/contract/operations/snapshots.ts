import { defineOperations } from '../operation.js';

const control = { tag: 'Emulator control plane', control: true, extension: true, auth: 'none' } as const;

/** CONTRACT §9 snapshots: loopback-only like the rest of the control plane. */
export const snapshotOperations = defineOperations({
  saveSnapshot: {
    ...control,
    method: 'POST',
    path: '/__emulator/snapshots',
    summary: 'Save the whole state (data, clock, keys, listener registrations) under a name',
    description: 'A snapshot of the same name is replaced. Saved with SQLite’s online backup while the emulator keeps serving.',
    body: 'SaveSnapshotRequest',
    responses: { 201: 'Snapshot' },
    errors: ['temporary_folder_unavailable'],
  },
  listSnapshots: {
    ...control,
    method: 'GET',
    path: '/__emulator/snapshots',
    summary: 'The saved snapshots, newest first',
    responses: { 200: 'SnapshotList' },
  },
  restoreSnapshot: {
    ...control,
    method: 'POST',
    path: '/__emulator/snapshots/{name}/restore',
    summary: 'Put a saved state back: its data, clock and keys',
    description:
      'Deliveries of the discarded state are dropped (a listener holding one is told it is gone); those of the restored state resume. Requests answered meanwhile see either state, never a mix.',
    responses: { 200: 'SnapshotRestored' },
    errors: ['snapshot_not_found', 'snapshot_invalid', 'temporary_folder_unavailable'],
  },
  exportSnapshot: {
    ...control,
    method: 'GET',
    path: '/__emulator/snapshots/{name}/file',
    summary: 'The snapshot as an SQLite database file (`svc snapshot export`; start from it with `svc dev --snapshot`)',
    responses: { 200: { stream: true, mediaType: 'application/vnd.sqlite3', description: 'An SQLite database file.' } },
    errors: ['snapshot_not_found', 'temporary_folder_unavailable'],
  },
  deleteSnapshot: {
    ...control,
    method: 'DELETE',
    path: '/__emulator/snapshots/{name}',
    summary: 'Delete a saved snapshot',
    responses: { 204: { description: 'Deleted.' } },
    errors: ['snapshot_not_found'],
  },
});
