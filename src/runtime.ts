/**
 * What every entry point runs first (bin/svc.js and the package import, through src/entry/runtime.ts):
 * refuse an unsupported Node with one line (CONTRACT §11), then turn on Node's own compile cache so
 * that a start reads V8's compiled code instead of parsing dist/ again.
 *
 * No imports from node: modules here: on an old Node a missing export would fail at link time,
 * before the check below could say why; and an ES import of a built-in builds its facade, which
 * reads every export (dist/runtime.js is compiled from source at every start). Built-ins come
 * through process.getBuiltinModule when first used, which Node 22.3 and later have.
 */
const os = () => process.getBuiltinModule('node:os');
const path = () => process.getBuiltinModule('node:path');

/** The oldest Node svc runs on; 22, 24 and 26 are the tested lines. */
export const MINIMUM_NODE = '22.12.0';

/** Why this Node cannot run svc, in one line, or null when it can. */
export function unsupportedNode(version: string = process.versions.node): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor = 0, needMinor = 0] = MINIMUM_NODE.split('.').map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return `svc needs Node.js ${needMajor}.${needMinor} or newer (22, 24 or 26); this is Node.js ${version}.`;
}

/**
 * The compile cache's folder: under the OS's cache folder, never inside the package (which may be
 * read-only, and is shared by every Node version that runs it; Node keeps one subfolder per version).
 * NODE_COMPILE_CACHE, when set, is the user's choice and Node's own.
 */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  if (env.NODE_COMPILE_CACHE) return undefined;
  const home = env.HOME || os().homedir();
  const { join } = path();
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'svc', 'compile-cache');
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'svc', 'compile-cache');
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'svc', 'compile-cache');
}

/**
 * Where dist/'s chunks keep the code V8 compiled for them (src/entry/chunk-loader.ts): beside the
 * compile cache, one folder per Node version and architecture (a cache fits only the V8 that made it).
 */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  // The variables it reads, not a copy of the whole environment (a copy of process.env reads every
  // variable through its accessor: ~0.1 ms of every start).
  const { HOME, LOCALAPPDATA, XDG_CACHE_HOME } = env;
  const base = compileCacheDir({ HOME, LOCALAPPDATA, XDG_CACHE_HOME }, platform)!;
  return path().join(path().dirname(base), 'code-cache', `${process.version}-${process.arch}`);
}

/** Checks the Node version (exit 1 with one line when unsupported) and enables the compile cache. */
export function prepareRuntime(): void {
  const refusal = unsupportedNode();
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    process.exit(1);
  }
  try {
    // A cache folder that cannot be written (read-only home, a sandbox) only costs the speed-up:
    // Node reports it in the returned status and compiles as usual.
    process.getBuiltinModule('node:module').enableCompileCache?.(compileCacheDir());
  } catch {
    // The cache is an optimisation; no start fails for it.
  }
}
