/**
 * The tests' own isolation (test/helpers/isolation.ts): each test has its own HOME, XDG folders,
 * TMPDIR and working folder under the run's root, no SVC_* from the shell, and the CLI under test
 * finds no `svc dev` above them (issue 23: a `svc dev` in /tmp answered the tests' commands).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { devStateAbove } from '../helpers/isolation-check.js';
import { testFolders } from '../helpers/isolation.js';

const root = inject('svcTestRoot');
const seen: string[] = [];

describe('test isolation', () => {
  for (const n of [1, 2]) {
    it(`gives test ${n} folders of its own under the run's root`, () => {
      const f = testFolders();
      expect(os.homedir()).toBe(f.home);
      expect(process.env.XDG_CONFIG_HOME).toBe(f.configHome);
      expect(process.env.XDG_CACHE_HOME).toBe(f.cacheHome);
      expect(os.tmpdir()).toBe(f.tmp);
      expect(fs.realpathSync(process.cwd())).toBe(fs.realpathSync(f.work));
      for (const dir of Object.values(f)) expect(dir.startsWith(root + path.sep)).toBe(true);
      expect(seen).not.toContain(f.work);
      seen.push(f.work);
    });
  }

  it('passes no SVC_* variable of the shell to the test or its children', () => {
    expect(Object.keys(process.env).filter((k) => k.startsWith('SVC_') && k !== 'SVC_RESPONSE_STATS')).toEqual([]);
  });

  it('starts the run outside any project: no package.json or .git above its root', () => {
    // What svc finds from a test's folder (config files, .svc/dev.json) stops at a project root: with
    // none above, a svc dev left running in /tmp is out of reach (CONTRACT §8), and nothing of ours is
    // found from the repository above.
    const markers: string[] = [];
    for (let d = path.dirname(root); ; d = path.dirname(d)) {
      for (const m of ['package.json', '.git']) if (fs.existsSync(path.join(d, m))) markers.push(path.join(d, m));
      if (path.dirname(d) === d) break;
    }
    expect(markers).toEqual([]);
  });

  it('finds a dev.json planted above a folder (the check can fail)', () => {
    const work = testFolders().work;
    fs.mkdirSync(path.join(work, '.svc'));
    fs.writeFileSync(path.join(work, '.svc', 'dev.json'), '{}');
    fs.mkdirSync(path.join(work, 'a', 'b'), { recursive: true });
    expect(devStateAbove(path.join(work, 'a', 'b'))).toBe(path.join(work, '.svc', 'dev.json'));
  });

  it('runs the CLI in the test working folder, where no svc dev is recorded', async () => {
    // No profile, no SVC_BASE_URL, no dev.json: nothing to talk to, whatever the shell has running.
    const { stdout } = await runInProcess(['status', '--json']);
    const status = JSON.parse(stdout);
    expect(status).toMatchObject({ baseUrl: null, profile: null, localEmulator: null });
  });
});
