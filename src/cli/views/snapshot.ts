import type { Style } from '../output/style.js';
import { esc } from '../output/escape.js';
import { table } from '../output/human.js';

export interface SnapshotData {
  name: string;
  createdAt: string;
  bytes: number;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** `seeded (148.0 KiB, saved at 2030-01-01T00:00:00.000Z)` */
export function snapshotView(c: Style, s: SnapshotData): string {
  return `${c.bold(esc(s.name))} ${c.dim(`(${formatBytes(s.bytes)}, saved at ${s.createdAt})`)}`;
}

export function snapshotListView(c: Style, list: SnapshotData[]): string {
  return table(
    c,
    [
      { header: 'name', value: (s: SnapshotData) => s.name },
      { header: 'saved at (emulator time)', value: (s) => s.createdAt },
      { header: 'size', value: (s) => formatBytes(s.bytes) },
    ],
    list,
    'no snapshots: save one with svc snapshot save <name>',
  );
}
