/**
 * `npm run image` where no image registry is reachable (issue 38): it ended in the engine's error and
 * a 15-line Node stack. Now the base image is looked for and pulled before anything is staged, and a
 * failed pull ends in one line naming the fallback, a base made locally. The engine is a stand-in
 * that answers as podman does without a registry (SVC_CONTAINER_ENGINE, scripts/container-engine.sh).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('svc-image-script-');
/** podman without a registry: no such image here, and the pull fails as podman's does. */
const ENGINE = path.join(dir, 'engine');
fs.writeFileSync(
  ENGINE,
  `#!/bin/sh
echo "$*" >> "${path.join(dir, 'calls')}"
case "$1 $2" in
  "image inspect") echo "Error: $3: image not known" >&2; exit 125 ;;
esac
if [ "$1" = pull ]; then
  echo "Trying to pull docker.io/library/debian:bookworm-slim..." >&2
  echo 'Error: initializing source docker://debian:bookworm-slim: pinging container registry registry-1.docker.io: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host' >&2
  exit 125
fi
echo "unexpected: $*" >&2
exit 2
`,
  { mode: 0o755 },
);

describe('npm run image without a registry', () => {
  it('ends in one line naming the fallback, before staging anything; no Node stack', () => {
    const staged = path.join(ROOT, '.image');
    const before = fs.statSync(staged, { throwIfNoEntry: false })?.mtimeMs;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'image.mjs')], {
      cwd: ROOT,
      env: { ...process.env, SVC_CONTAINER_ENGINE: ENGINE },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(
      'npm run image: cannot pull debian:bookworm-slim; where no image registry is reachable, build on a local Debian base: npm run image -- --base "$(scripts/container-base.sh)"',
    );
    // The engine's own words come first; nothing of Node's after them.
    expect(lines.at(-2)).toMatch(/pinging container registry/);
    expect(r.stderr).not.toMatch(/\n\s+at |node:internal/);
    expect(fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n')).toEqual(['image inspect debian:bookworm-slim', 'pull debian:bookworm-slim']);
    expect(fs.statSync(staged, { throwIfNoEntry: false })?.mtimeMs).toBe(before);
  });
});
