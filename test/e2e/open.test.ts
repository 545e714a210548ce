import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

/** `svc open` (CONTRACT §10): opens the dashboard with the browser command, or prints its URL. */
const each = perTest();

it('prints the dashboard URL off a terminal; SVC_BROWSER opens it with that command', async () => {
  const emu = await each.emulator();
  const dir = tempDir();
  const printed = await runCli(['open', '--base-url', emu.url], { cwd: dir, env: { SVC_BROWSER: '' } });
  expect(printed.code, printed.stderr).toBe(0);
  expect(printed.stdout.trim()).toBe(`${emu.url}/__emulator/ui/`);

  const opener = path.join(dir, 'browser.sh');
  const seen = path.join(dir, 'seen.txt');
  // Written aside then renamed: the file appears whole (`>` creates it empty first).
  fs.writeFileSync(opener, `#!/bin/sh\necho "$1" > ${JSON.stringify(`${seen}.part`)} && mv ${JSON.stringify(`${seen}.part`)} ${JSON.stringify(seen)}\n`, {
    mode: 0o755,
  });
  const opened = await runCli(['open', '--base-url', emu.url, '--json'], { cwd: dir, env: { SVC_BROWSER: opener } });
  expect(JSON.parse(opened.stdout)).toEqual({ url: `${emu.url}/__emulator/ui/`, opened: true });
  for (let i = 0; i < 500 && !fs.existsSync(seen); i++) await new Promise((r) => setTimeout(r, 20));
  expect(fs.readFileSync(seen, 'utf8').trim()).toBe(`${emu.url}/__emulator/ui/`);
});

it('against nothing: exit 3', async () => {
  const r = await runCli(['open', '--base-url', 'http://127.0.0.1:9'], { cwd: tempDir() });
  expect(r.code).toBe(3);
});
