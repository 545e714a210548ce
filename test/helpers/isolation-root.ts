/**
 * vitest globalSetup of every project and of the reliability suite: makes the one root folder of
 * this run, under which each test gets its own HOME, XDG folders, TMPDIR and working folder
 * (test/helpers/isolation.ts). The root is in the OS's temporary folder, outside any project: a
 * `svc dev` someone left running in /tmp or $HOME is not found from there, since svc searches
 * `.svc/dev.json` only up to the project root (CONTRACT §8), and a project above the tests' folders
 * (a root under node_modules/.cache, tried once) changes what config and state searches find. The path
 * stays short: Chromium's singleton socket lives under TMPDIR, and a Unix socket path has 107 bytes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    svcTestRoot: string;
    svcRealHome: string;
  }
}

function makeRoot(): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'svc-tests-'));
}

// Each project runs its globalSetup in the same (main) vitest process: one root for the whole run.
const shared = globalThis as { svcTestRoot?: string; svcTestRootUsers?: number };

/**
 * Keeps the root until as many releases: each project's setup holds it, and so does anything living
 * in it longer than one project (the run's PostgreSQL server, postgres-global.ts). Projects tear
 * down in no fixed order: removing it at the first teardown pulled the server's folder from under it.
 */
export function holdRoot(): string {
  shared.svcTestRoot ??= makeRoot();
  shared.svcTestRootUsers = (shared.svcTestRootUsers ?? 0) + 1;
  return shared.svcTestRoot;
}

/** One holder done; the last one removes the root. */
export function releaseRoot(): void {
  shared.svcTestRootUsers = (shared.svcTestRootUsers ?? 1) - 1;
  if (shared.svcTestRootUsers === 0 && shared.svcTestRoot) fs.rmSync(shared.svcTestRoot, { recursive: true, force: true });
}

export default function setup(project: TestProject): () => void {
  const root = holdRoot();
  project.provide('svcTestRoot', root);
  project.provide('svcRealHome', os.homedir());
  return releaseRoot;
}
