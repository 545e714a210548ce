import type { OpenedStore } from './store.js';

/** SQLite's side of `Parts.query`: a statement that returns rows, or one that does not (an empty list). */
export function sqliteQuery(store: OpenedStore | null, text: string): Record<string, unknown>[] {
  if (!store) throw new Error('no SQLite store');
  const statement = store.sqlite.prepare(text);
  if (!statement.reader) {
    statement.run();
    return [];
  }
  const rows: Record<string, unknown>[] = [];
  for (const row of statement.all()) if (typeof row === 'object' && row !== null) rows.push({ ...row });
  return rows;
}
