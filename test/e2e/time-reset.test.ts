/**
 * The clock can go back (issue 38): after `svc time advance 61m` the developer's emulator no longer
 * stays in the future for good. `svc time reset`, `svc reset --yes` and `svc dev --reset` put it at
 * the real time again (or at `--clock-start`), through the real CLI against a real `svc dev`.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

const { track } = perTest();
const env = { SVC_PROFILE: '' };

/** `svc dev` in `cwd` with `args`, started and ready; commands run in `cwd` find it through .svc/dev.json. */
async function dev(cwd: string, args: string[]) {
  const cli = track(spawnCli(['dev', '--port', '0', '--json', ...args], { cwd, env }));
  await cli.waitForLine((l) => l.includes('"type":"ready"'));
  return cli;
}

async function clock(cwd: string): Promise<{ now: string; offsetSeconds: number }> {
  const r = await runCli(['time', 'show', '--json'], { cwd, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

async function advance(cwd: string, by: string): Promise<void> {
  const r = await runCli(['time', 'advance', by], { cwd, env });
  expect(r.code, r.stderr).toBe(0);
}

describe('the clock goes back', () => {
  it('svc time reset: the real time again (offset 0), in human and --json', async () => {
    const cwd = tempDir('svc-time-reset-');
    await dev(cwd, ['--memory']);
    await advance(cwd, '61m');
    expect((await clock(cwd)).offsetSeconds).toBe(3660);
    const human = await runCli(['time', 'reset'], { cwd, env });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^offset\s+none \(real time\)$/m);
    await advance(cwd, '1h');
    const w0 = Date.now();
    const json = await runCli(['time', 'reset', '--json'], { cwd, env });
    const w1 = Date.now();
    expect(json.code, json.stderr).toBe(0);
    const body = JSON.parse(json.stdout);
    expect(body.offsetSeconds).toBe(0);
    expect(Date.parse(body.now)).toBeGreaterThanOrEqual(w0);
    expect(Date.parse(body.now)).toBeLessThanOrEqual(w1);
  });

  it('svc reset --yes puts the clock back with the data', async () => {
    const cwd = tempDir('svc-time-reset-');
    await dev(cwd, ['--memory']);
    await advance(cwd, '61m');
    const r = await runCli(['reset', '--yes'], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    expect((await clock(cwd)).offsetSeconds).toBe(0);
  });

  it('svc dev --reset on the same database starts at the real time; a plain restart keeps the advance', async () => {
    const cwd = tempDir('svc-time-reset-');
    const db = ['--db', path.join(cwd, 'kept.sqlite')];
    const first = await dev(cwd, db);
    await advance(cwd, '61m');
    await first.stop();
    const second = await dev(cwd, db);
    expect((await clock(cwd)).offsetSeconds).toBe(3660);
    await second.stop();
    await dev(cwd, [...db, '--reset']);
    expect((await clock(cwd)).offsetSeconds).toBe(0);
  });

  it('with --clock-start: back to the start', async () => {
    const cwd = tempDir('svc-time-reset-');
    await dev(cwd, ['--memory', '--clock-start', '2030-01-01T00:00:00Z']);
    await advance(cwd, '1d');
    const r = await runCli(['time', 'reset', '--json'], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ now: '2030-01-01T00:00:00.000Z', offsetSeconds: 0 });
  });
});
