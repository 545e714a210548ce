import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';

/**
 * The package version. The build writes it in (scripts/build.mjs, from package.json): a start then
 * neither looks for the package's root nor reads package.json (bench #12, #13). The sources read it
 * from package.json (at the package's root).
 */
export const VERSION: string = versionOf(JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')));

/** package.json's `version`, looked at rather than assumed: a broken install names what is wrong. */
function versionOf(pkg: unknown): string {
  if (typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string') return pkg.version;
  throw new Error(`svc's package.json (${path.join(packageRoot(), 'package.json')}) has no "version"`);
}
