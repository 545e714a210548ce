import fs from 'node:fs';

/**
 * The package's root folder (package.json, assets/, templates/) as a URL ending in `/`. This module
 * runs from src/ under the tests and from a chunk of dist/ once built, at another depth, so it looks
 * up from its own location for the nearest folder holding package.json instead of counting `../`.
 */
export const PACKAGE_ROOT: URL = findRoot(new URL('.', import.meta.url));

function findRoot(start: URL): URL {
  for (let dir = start; ; dir = new URL('../', dir)) {
    if (fs.existsSync(new URL('package.json', dir))) return dir;
    if (new URL('../', dir).href === dir.href) throw new Error(`no package.json above ${start.href}`);
  }
}
