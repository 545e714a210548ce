import { afterEach, expect, it } from 'vitest';
import { runCli, spawnCli, type LiveCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

/** `svc dev --seed --clock-start` (CONTRACT §9): the same keys, ids and times on every run. */
const running: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGINT')));
});

async function run() {
  const p = spawnCli(['dev', '--port', '0', '--memory', '--json', '--seed', '7', '--clock-start', '2030-01-01T00:00:00Z'], { cwd: tempDir() });
  running.push(p);
  const ready = JSON.parse(await p.waitForLine(() => true));
  const res = await request(ready.baseUrl, 'POST', '/v1/invoices', { key: ready.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1.00' } });
  await p.stop('SIGINT');
  return { keys: { test: ready.test, live: ready.live }, id: res.body.id, expiresAt: res.body.expiresAt };
}

it('two runs with the same seed and clock start: the same test keys, the same invoice id, the same time; live keys random', async () => {
  const one = await run();
  const two = await run();
  expect({ ...two, keys: two.keys.test }).toEqual({ ...one, keys: one.keys.test });
  // A seed is no secret: live keys that anyone with it could derive would protect nothing (issue 22).
  expect(two.keys.live.merchantId).toBe(one.keys.live.merchantId);
  expect(two.keys.live.partnerKey).not.toBe(one.keys.live.partnerKey);
  expect(two.keys.live.merchantKey).not.toBe(one.keys.live.merchantKey);
  expect(one.expiresAt).toBe('2030-01-01T01:00:00.000Z');
});

it('bad values are usage errors naming the flag', async () => {
  const bad = await runCli(['dev', '--port', '0', '--memory', '--clock-start', 'soon'], { cwd: tempDir() });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--clock-start');
  const negative = await runCli(['dev', '--port', '0', '--memory', '--seed', '-3'], { cwd: tempDir() });
  expect(negative.code).toBe(2);
  expect(negative.stderr).toContain('--seed');
});
