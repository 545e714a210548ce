import fs from 'node:fs';
import path from 'node:path';

let root: string | undefined;

/**
 * The package's root folder (package.json, assets/, templates/). This module runs from src/ under
 * the tests and from a chunk of dist/ once built, at another depth, so it looks up from its own
 * folder for the nearest one holding package.json instead of counting `../`. Looked for when first
 * asked, with paths (URLs cost a start ~0.1 ms more), and most starts need none of it (bench #12, #13).
 */
export function packageRoot(): string {
  root ??= findRoot(import.meta.dirname);
  return root;
}

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}
