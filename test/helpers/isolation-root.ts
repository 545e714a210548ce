/**
 * vitest globalSetup of every project and of the reliability suite: makes the one root folder of
 * this run, under which each test gets its own HOME, XDG folders, TMPDIR and working folder
 * (test/helpers/isolation.ts). The root is placed where no folder above it holds a `.svc/dev.json`:
 * a `svc dev` someone left running in /tmp or $HOME must not be found by the CLI under test
 * (issue 23: four red tests on a machine where one ran in /tmp). /tmp first, else node_modules/.cache.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { devStateAbove } from './isolation-check.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    svcTestRoot: string;
    svcRealHome: string;
  }
}

function makeRoot(): string {
  const candidates = [fs.realpathSync(os.tmpdir()), path.join(ROOT, 'node_modules', '.cache', 'svc-tests')];
  const refused: string[] = [];
  for (const base of candidates) {
    const found = devStateAbove(base);
    if (found) {
      refused.push(`${base} (${found} is above it)`);
      continue;
    }
    fs.mkdirSync(base, { recursive: true });
    return fs.mkdtempSync(path.join(base, 'svc-tests-'));
  }
  throw new Error(`No place for the tests' folders without a .svc/dev.json above it: ${refused.join('; ')}. Stop that svc dev or remove the file.`);
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
