import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

let driver: typeof BetterSqlite3 | undefined;

/**
 * Opens a database with better-sqlite3, loaded with `require`: imported as an ES module, Node first
 * parses the package's CommonJS files for their export names, ~3 ms of every start (bench #16).
 * better-sqlite3 13 finds its addon among the prebuilt binaries it ships (no `bindings` search).
 * A Buffer is a serialized database, opened in memory (sqlite/empty-image.ts).
 */
export function openSqlite(file: string | Buffer, options: BetterSqlite3.Options = {}): BetterSqlite3.Database {
  // From this file's path, not its URL: in dist/, `import.meta.url` is a pathToFileURL made at each
  // read (~0.1 ms of a start), `import.meta.filename` is the chunk's `__filename` (scripts/build.mjs).
  driver ??= createRequire(import.meta.filename)('better-sqlite3') as typeof BetterSqlite3;
  return new driver(file, options);
}
