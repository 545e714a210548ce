import { defineCommand, withHandler } from '../../spec.js';

const name = { name: 'name', description: 'letters, digits, ".", "_" or "-"' } as const;

export const saveSnapshotSpec = defineCommand({
  name: 'snapshot save',
  summary: 'save the whole state (data, clock, keys) under a name',
  args: [name],
  examples: ['svc snapshot save seeded', 'svc snapshot save before-refund --json'],
});

export const restoreSnapshotSpec = defineCommand({
  name: 'snapshot restore',
  summary: 'put a saved state back: its data, clock and keys',
  args: [name],
  examples: ['svc snapshot restore seeded'],
});

export const listSnapshotsSpec = defineCommand({
  name: 'snapshot list',
  summary: 'the saved snapshots, newest first',
});

export const deleteSnapshotSpec = defineCommand({
  name: 'snapshot delete',
  summary: 'delete a saved snapshot',
  args: [name],
});

export const exportSnapshotSpec = defineCommand({
  name: 'snapshot export',
  summary: 'write a snapshot to a file (start from it with svc dev --snapshot <file>)',
  args: [name, { name: 'file', description: 'where to write it (an SQLite database file)' }],
  examples: ['svc snapshot export seeded bug-4711.sqlite', 'svc dev --snapshot bug-4711.sqlite'],
});

export const snapshotCommands = [
  withHandler(saveSnapshotSpec, async () => (await import('./commands.js')).saveSnapshotCommand),
  withHandler(restoreSnapshotSpec, async () => (await import('./commands.js')).restoreSnapshotCommand),
  withHandler(listSnapshotsSpec, async () => (await import('./commands.js')).listSnapshotsCommand),
  withHandler(deleteSnapshotSpec, async () => (await import('./commands.js')).deleteSnapshotCommand),
  withHandler(exportSnapshotSpec, async () => (await import('./export.js')).exportSnapshotCommand),
];
