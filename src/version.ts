import { readFileSync } from 'node:fs';
import { PACKAGE_ROOT } from './package-root.js';

/** The package version, read once from package.json (at the package's root). */
export const VERSION: string = versionOf(JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')));

/** package.json's `version`, looked at rather than assumed: a broken install names what is wrong. */
function versionOf(pkg: unknown): string {
  if (typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string') return pkg.version;
  throw new Error(`svc's package.json (${new URL('package.json', PACKAGE_ROOT).pathname}) has no "version"`);
}
