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
const shared = globalThis as { svcTestRoot?: string };

export default function setup(project: TestProject): () => void {
  shared.svcTestRoot ??= makeRoot();
  project.provide('svcTestRoot', shared.svcTestRoot);
  project.provide('svcRealHome', os.homedir());
  const root = shared.svcTestRoot;
  return () => {
    // Teardown runs once per project; the first removes the folder, the rest find nothing.
    fs.rmSync(root, { recursive: true, force: true });
  };
}
