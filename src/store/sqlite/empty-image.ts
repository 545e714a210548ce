/**
 * An in-memory database that starts as a copy of an empty, migrated one: the build migrates a fresh
 * database once and ships it serialized (dist/store/empty.sqlite); an in-memory emulator deserializes
 * it (better-sqlite3's `new Database(buffer)`, ~0.2 ms) instead of running every migration's DDL on
 * every start (~3–5 ms, bench #12, #13, #16). The image is exactly what the migrations make
 * (test/integration/compiled-sql.test.ts); `migrate()` then finds every migration recorded. A file
 * database is never made from it: its first start runs the real migrations, as every later one does.
 */
import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { COMPILED } from '../compiled.js';
import { MIGRATION_TABLE, migrate } from '../migrate.js';
import { openSqlite } from '../sqlite.js';
import { packageRoot } from '../../package-root.js';

/** Where the build writes the image, under the package's root. */
export const EMPTY_IMAGE_FILE = 'dist/store/empty.sqlite';

let image: Buffer | null | undefined;

/**
 * A new in-memory database: from the image when the built package has one, with its migrations'
 * record dated now (as if they had just run); otherwise empty, and `migrate()` makes it. The sources
 * (the tests) never use an image, which could be older than their migrations.
 */
export function openMemoryDatabase(): BetterSqlite3.Database {
  image ??= COMPILED ? readImage() : null;
  if (!image) return openSqlite(':memory:');
  const sqlite = openSqlite(image);
  sqlite.prepare(`UPDATE ${MIGRATION_TABLE} SET timestamp = ?`).run(new Date().toISOString());
  return sqlite;
}

function readImage(): Buffer | null {
  try {
    return fs.readFileSync(path.join(packageRoot(), EMPTY_IMAGE_FILE));
  } catch {
    // A package without its image (copied in part): the migrations make the database, as in the sources.
    return null;
  }
}

/**
 * The image: a fresh in-memory database migrated by `migrate()` (with the build's recorded SQL when
 * given, as dist/ runs it), serialized. Build time (scripts/build.mjs) and tests only.
 */
export async function buildEmptyImage(compiled?: Record<string, string[]>): Promise<Buffer> {
  const sqlite = openSqlite(':memory:');
  try {
    await migrate(sqlite, compiled ? { compiled } : {});
    return sqlite.serialize();
  } finally {
    sqlite.close();
  }
}
