/**
 * dist/ runs the SQL the build compiled (scripts/build.mjs, src/store/compile.ts) instead of kysely:
 * the migrations as the statements they executed, recorded once. A database made from the recording
 * must be the database the migrations make, or every user of the package would get another schema
 * than the tests (which run the sources, through kysely) check.
 */
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compileSql } from '../../src/store/compile.js';
import { buildEmptyImage } from '../../src/store/sqlite/empty-image.js';
import { migrate, recorded } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';

function shapeOf(db: BetterSqlite3.Database) {
  return {
    schema: db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all(),
    applicationId: db.pragma('application_id', { simple: true }),
    userVersion: db.pragma('user_version', { simple: true }),
    recorded: recorded(db),
  };
}

/** How many rows each table holds. */
function rowsOf(db: BetterSqlite3.Database): Record<string, unknown> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get()]));
}

describe('the SQL the build compiles', () => {
  it('a fresh database migrated from the recorded SQL has exactly the schema the migrations make', async () => {
    const { migrations: compiled } = await compileSql();
    expect(Object.keys(compiled)).toEqual(Object.keys(migrations));
    for (const statements of Object.values(compiled)) expect(statements.length).toBeGreaterThan(0);

    const viaKysely = new BetterSqlite3(':memory:');
    const viaRecording = new BetterSqlite3(':memory:');
    try {
      await migrate(viaKysely);
      await migrate(viaRecording, { compiled });
      const expected = shapeOf(viaKysely);
      expect(expected.schema.length).toBeGreaterThan(10);
      expect(shapeOf(viaRecording)).toEqual(expected);
    } finally {
      viaKysely.close();
      viaRecording.close();
    }
  });

  // An in-memory emulator of the built package starts from this image (src/store/sqlite/empty-image.ts,
  // dist/store/empty.sqlite) instead of running the migrations: it must be what they make.
  it('the empty image in-memory databases start from is the database the migrations make, with no rows', async () => {
    const { migrations: compiled } = await compileSql();
    const image = new BetterSqlite3(await buildEmptyImage(compiled));
    const viaKysely = new BetterSqlite3(':memory:');
    try {
      await migrate(viaKysely);
      expect(shapeOf(image)).toEqual(shapeOf(viaKysely));
      const counts = rowsOf(image);
      expect(counts).toEqual(rowsOf(viaKysely));
      expect(counts).toEqual({ ...Object.fromEntries(Object.keys(counts).map((t) => [t, 0])), kysely_migration: Object.keys(migrations).length });
      // Opened from the image, the database takes writes like any other, and migrate() has nothing to do.
      expect(await migrate(image)).toEqual([]);
      image.prepare("INSERT INTO meta (key, value) VALUES ('probe', '1')").run();
    } finally {
      image.close();
      viaKysely.close();
    }
  });

  it('migrates a database an earlier release left at any version to the same schema', async () => {
    const { migrations: compiled } = await compileSql();
    const names = Object.keys(migrations);
    const fresh = new BetterSqlite3(':memory:');
    await migrate(fresh);
    const expected = shapeOf(fresh);
    fresh.close();
    for (const upTo of names) {
      const db = new BetterSqlite3(':memory:');
      try {
        await migrate(db, { upTo }); // an earlier release, through kysely
        await migrate(db, { compiled }); // this one, from the recording
        expect(shapeOf(db)).toEqual(expected);
      } finally {
        db.close();
      }
    }
  });
});
