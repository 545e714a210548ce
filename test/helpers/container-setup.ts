/**
 * globalSetup of the `container` project: builds dist/, the Debian base (once per machine, cached
 * by scripts/container-base.sh in ~/.cache/svc-container) and the image (`npm run image`'s script,
 * on that base: no registry is needed), and tells the tests which engine and image to use. Where
 * neither podman nor docker can run, it says so in one line and every test of the project is skipped.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import buildDist from './build-once.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export default async function setup(project: TestProject): Promise<void> {
  let engine: string | null = null;
  try {
    engine = execFileSync(path.join(ROOT, 'scripts/container-engine.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {}
  if (!engine) {
    console.log('container tests skipped: neither podman nor docker works here (install podman and runc, or start Docker)');
    project.provide('containerEngine', '');
    project.provide('containerImage', '');
    return;
  }
  await buildDist();
  const base = execFileSync(path.join(ROOT, 'scripts/container-base.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/image.mjs'), '--base', base], { stdio: ['ignore', 'ignore', 'inherit'] });
  const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
  project.provide('containerEngine', engine);
  project.provide('containerImage', `svc-emulator:${version}`);
}
