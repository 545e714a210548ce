/**
 * Looks at the emulator's SQLite file from the test: row counts per table, and every row as it was,
 * so that a burst of requests can be reconciled exactly with what it was told it created.
 */
import type BetterSqlite3 from 'better-sqlite3';

export type Db = BetterSqlite3.Database;

/** Every table's name, sorted. */
export function tableNames(db: Db): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );
}

/** The number of rows of every table. */
export function rowCounts(db: Db): Record<string, number> {
  return Object.fromEntries(tableNames(db).map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n]));
}

/** Every row of every table, keyed by table and rowid, serialised for exact comparison. */
export function allRows(db: Db): Map<string, Map<number, string>> {
  const out = new Map<string, Map<number, string>>();
  for (const t of tableNames(db)) {
    const rows = db.prepare(`SELECT rowid AS __rowid, * FROM "${t}"`).all() as ({ __rowid: number } & Record<string, unknown>)[];
    out.set(t, new Map(rows.map(({ __rowid, ...row }) => [__rowid, JSON.stringify(row)])));
  }
  return out;
}

/** Rows of `before` that are gone or changed in `after`, described; empty when every one is intact. */
export function changedRows(before: Map<string, Map<number, string>>, after: Map<string, Map<number, string>>): string[] {
  const problems: string[] = [];
  for (const [table, rows] of before) {
    const now = after.get(table);
    for (const [rowid, json] of rows) {
      const current = now?.get(rowid);
      if (current === undefined) problems.push(`${table} row ${rowid} disappeared: ${json.slice(0, 200)}`);
      else if (current !== json) problems.push(`${table} row ${rowid} changed: ${json.slice(0, 200)} → ${current.slice(0, 200)}`);
    }
  }
  return problems;
}

/** Rows of `table` added since `before` (by rowid), parsed. */
export function addedRows<T = Record<string, unknown>>(before: Map<string, Map<number, string>>, after: Map<string, Map<number, string>>, table: string): T[] {
  const old = before.get(table) ?? new Map<number, string>();
  return [...(after.get(table) ?? new Map<number, string>())].filter(([rowid]) => !old.has(rowid)).map(([, json]) => JSON.parse(json) as T);
}
