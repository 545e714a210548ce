import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const requireHere = createRequire(import.meta.url);
let addon: string | null | undefined;
let driver: typeof BetterSqlite3 | undefined;

/**
 * Opens a database with better-sqlite3, loaded with `require`: imported as an ES module, Node first
 * parses the package's CommonJS files for their export names, ~3 ms of every start (bench #16).
 */
export function openSqlite(file: string, options: BetterSqlite3.Options = {}): BetterSqlite3.Database {
  driver ??= requireHere('better-sqlite3') as typeof BetterSqlite3;
  return new driver(file, sqliteOptions(options));
}

/**
 * better-sqlite3's options with its native addon named. Left to itself, better-sqlite3 asks the
 * `bindings` package to find the addon, which reads the call stack and probes a dozen folders: ~5 ms
 * of every start. npm builds (or downloads) it into build/Release; where it is not there (a custom
 * build), `bindings` looks as before.
 */
function sqliteOptions(options: BetterSqlite3.Options = {}): BetterSqlite3.Options {
  if (addon === undefined) {
    try {
      addon = requireHere.resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      addon = null;
    }
  }
  return addon ? { ...options, nativeBinding: addon } : options;
}
