import type { TestEmulator } from './emulator.js';

/** Every table's full contents, in a stable order. */
export function snapshot(emu: TestEmulator): string {
  const db = emu.store.sqlite;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
  return JSON.stringify(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all()]));
}
