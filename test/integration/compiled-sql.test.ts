/**
 * dist/ runs the SQL the build compiled (scripts/build.mjs, src/store/compile.ts) instead of kysely:
 * the migrations as the statements they executed, recorded once. A database made from the recording
 * must be the database the migrations make, or every user of the package would get another schema
 * than the tests (which run the sources, through kysely) check.
 */
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compileSql } from '../../src/store/compile.js';
import { migrate, recorded } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';

function shapeOf(db: BetterSqlite3.Database) {
  return {
    schema: db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all(),
    applicationId: db.pragma('application_id', { simple: true }),
    recorded: recorded(db),
  };
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
