import fs from 'node:fs';

let root: URL | undefined;

/**
 * The package's root folder (package.json, assets/, templates/) as a URL ending in `/`. This module
 * runs from src/ under the tests and from a chunk of dist/ once built, at another depth, so it looks
 * up from its own location for the nearest folder holding package.json instead of counting `../`.
 * Looked for when first asked: in dist/, `import.meta.url` is a pathToFileURL of the chunk's file,
 * and with the search ~0.3 ms of every start, most of which need none of it (bench #12, #13).
 */
export function packageRoot(): URL {
  root ??= findRoot(new URL('.', import.meta.url));
  return root;
}

function findRoot(start: URL): URL {
  for (let dir = start; ; dir = new URL('../', dir)) {
    if (fs.existsSync(new URL('package.json', dir))) return dir;
    if (new URL('../', dir).href === dir.href) throw new Error(`no package.json above ${start.href}`);
  }
}
