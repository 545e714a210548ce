/**
 * Reliability: two `svc dev` on one database at the same moment (issue 10; CONTRACT §8 "One emulator
 * per database").
 *
 * Two processes are started together on the same fresh file, in the same folder, many times. Each
 * time exactly one becomes ready; the other exits 1 with one line naming the winner's pid (its URL, or
 * "still starting" when it lost during the winner's start), and `.svc/dev.json` is the winner's, as
 * the winner wrote it. One Idempotency-Key sent to "both" therefore creates one invoice. Then the
 * winner is SIGKILLed: the claim dies with it, and a new `svc dev` on the file starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LiveCli, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { ReadyEvent } from './lib/dev-process.js';
import { PlainClient } from './lib/plain-client.js';

const ROUNDS = 8;

// A failed round must not leave emulators running (before the fix, both of a pair kept serving).
const spawned: LiveCli[] = [];
const start = (cwd: string) => {
  const p = spawnCli(['dev', '--json', '--port', '0'], { cwd });
  spawned.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(spawned.splice(0).map((p) => p.stop('SIGKILL')));
});

describe('two svc dev started together on one database', () => {
  it('one serves, the other exits 1 with one line naming it; dev.json is the winner’s; a kill frees the database', async () => {
    const summary = { rounds: 0, refusedWhileStarting: 0, refusedWhileRunning: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const dir = tempDir(`svc-one-emulator-${round}-`);
      const both = [0, 1].map(() => start(dir));
      const outcomes = await Promise.all(
        both.map(async (p) => {
          const line = await p.waitForLine((l) => l.startsWith('{"type":"ready"'), 20_000).catch(() => null);
          return line ? { ready: JSON.parse(line) as ReadyEvent, p } : { code: await p.exited, p };
        }),
      );
      const winners = outcomes.filter((o) => 'ready' in o);
      const losers = outcomes.filter((o) => 'code' in o);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      const winner = winners[0] as { ready: ReadyEvent; p: (typeof both)[number] };
      const loser = losers[0] as { code: number | null; p: (typeof both)[number] };
      expect(loser.code).toBe(1);
      const line = loser.p.stderr();
      const match = /^error database \.svc\/emulator\.sqlite is in use by svc dev \(pid (\d+), (http:\/\/127\.0\.0\.1:\d+|still starting)\)\n$/.exec(line);
      expect(match, line).not.toBeNull();
      expect(Number(match![1])).toBe(winner.p.child.pid);
      if (match![2] === 'still starting') summary.refusedWhileStarting += 1;
      else {
        expect(match![2]).toBe(winner.ready.baseUrl);
        summary.refusedWhileRunning += 1;
      }

      const state = JSON.parse(fs.readFileSync(path.join(dir, '.svc', 'dev.json'), 'utf8')) as { pid: number; baseUrl: string };
      expect(state).toMatchObject({ pid: winner.p.child.pid, baseUrl: winner.ready.baseUrl });

      // The same Idempotency-Key, sent again and again: one invoice.
      const client = new PlainClient(winner.ready.baseUrl);
      const body = { amount: '5.00' };
      const first = await client.call('POST', '/v1/invoices', { key: winner.ready.test.merchantKey, body, idempotencyKey: `pair-${round}` });
      const second = await client.call('POST', '/v1/invoices', { key: winner.ready.test.merchantKey, body, idempotencyKey: `pair-${round}` });
      expect(!first.cut && !second.cut && [first.status, second.status]).toEqual([201, 200]);
      await client.close();

      // The claim dies with its process.
      winner.p.child.kill('SIGKILL');
      await winner.p.exited;
      const next = start(dir);
      const ready = JSON.parse(await next.waitForLine((l) => l.startsWith('{"type":"ready"'), 20_000)) as ReadyEvent;
      expect(ready.test.merchantKey).toBe(winner.ready.test.merchantKey);
      expect(await next.stop('SIGINT')).toBe(0);
      summary.rounds += 1;
    }
    console.log(
      `[one-emulator] ${summary.rounds} rounds: the loser was refused ${summary.refusedWhileStarting}× while the winner started, ${summary.refusedWhileRunning}× once it ran; a SIGKILL freed the database every time`,
    );
  }, 300_000);
});
