/**
 * Columns of rows that better-sqlite3 returns untyped (`unknown`): statements written as plain SQL
 * (pragmas, `sqlite_schema`, a file that may not be ours). Read by looking, never by casting, so a
 * row of another shape is an error that names the column instead of a wrong value passed on.
 */
/** A column's value, of any type (the caller checks it). */
export function column(row: unknown, name: string): unknown {
  if (typeof row !== 'object' || row === null || !(name in row)) throw new Error(`expected a row with a column "${name}"`);
  return Reflect.get(row, name);
}

export function textColumn(row: unknown, name: string): string {
  const value = column(row, name);
  if (typeof value !== 'string') throw new Error(`expected column "${name}" to hold text, found ${typeof value}`);
  return value;
}

export function nullableTextColumn(row: unknown, name: string): string | null {
  const value = column(row, name);
  if (value === null) return null;
  if (typeof value !== 'string') throw new Error(`expected column "${name}" to hold text or NULL, found ${typeof value}`);
  return value;
}
