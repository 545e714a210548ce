/**
 * The helper behind every "bad input changes nothing" check (test/helpers/db-snapshot.ts) must see
 * a write, on the engine this project runs: a row added, a column changed, a row removed. Run by both
 * integration projects, so the PostgreSQL side of the check is proven able to fail too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot, writeMark } from '../helpers/db-snapshot.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.stop();
});

describe('db-snapshot', () => {
  it('is the same while nothing writes', async () => {
    const first = await snapshot(emu);
    expect(first).toContain('"partners"');
    expect(await snapshot(emu)).toBe(first);
  });

  it('sees a row added, a column changed and a row removed, and the mark moves each time', async () => {
    const steps = [
      "INSERT INTO meta (key, value) VALUES ('db_snapshot_test', 'a')",
      "UPDATE meta SET value = 'b' WHERE key = 'db_snapshot_test'",
      "DELETE FROM meta WHERE key = 'db_snapshot_test'",
    ];
    for (const step of steps) {
      const before = await snapshot(emu);
      const mark = await writeMark(emu);
      await emu.query(step);
      expect(await writeMark(emu), step).not.toBe(mark);
      expect(await snapshot(emu), step).not.toBe(before);
    }
  });

  it('sees a change the API makes', async () => {
    const before = await snapshot(emu);
    const created = await emu.client.test.createPartner({ body: { name: 'Snapshot check' } });
    expect(created.ok).toBe(true);
    expect(await snapshot(emu)).not.toBe(before);
  });
});
