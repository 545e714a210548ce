/**
 * Loads dist/'s CommonJS chunks with a V8 code cache made after they ran (bench #9, #12, #13, #16;
 * docs/performance.md). Node's own compile cache is made right after a module is compiled, before it
 * runs: it holds only what V8 compiles up front (a module's top level), so every function a start
 * calls is compiled from source again at every start, ~15% of one. `vm.Script` can make its cache
 * later (`createCachedData()`): here a chunk with no usable cache is compiled from source, and its
 * cache written once the start it served has run (on exit, or 1.5 s after the first chunk loaded),
 * under the user's cache folder, one per Node version and per kind of start (the command's word, or
 * `api` for the package), since each runs other functions of the same chunk. V8 checks each cache
 * against this Node, its flags and the source, and compiles from source when it does not fit.
 *
 * With source maps on (`--enable-source-maps`, or the CLI's `--verbose`/`SVC_DEBUG=1`, which show
 * stacks) chunks load through Node's own `require`, which maps stack frames to src/; so they do
 * when no cache folder can be written, or NODE_DISABLE_COMPILE_CACHE is set.
 *
 * A chunk sees the usual CommonJS names; `require('./….cjs')` comes back here, anything else goes to
 * Node's require (the package's dependencies, Node's built-ins), and a dynamic import of a dependency
 * goes to `__svcImport`, an ES module's own `import()` (the build writes the chunks so).
 */
import type vm from 'node:vm';
import { codeCacheDir } from '../runtime.js';

// Built-ins through process.getBuiltinModule, when first used: an ES import of node:fs builds its
// facade, which reads every export and loads fs/promises, readline and ~30 modules more (~3 ms), and
// this module runs before the Node check has refused an old Node.
const fs = () => process.getBuiltinModule('node:fs');
const path = () => process.getBuiltinModule('node:path');
const createRequire = (file: string) => process.getBuiltinModule('node:module').createRequire(file);

interface Loaded {
  exports: unknown;
}

interface Compiled {
  script: vm.Script;
  /** Where its cache goes: written when none was read or V8 refused the one read. */
  cacheFile: string | null;
}

/**
 * The chunks this process has run, by file. dist/ holds this module twice (dist/runtime.js for the
 * package's ES module entry points, dist/runtime.cjs for the CLI's CommonJS path): both copies use
 * one table, so that a chunk runs once per process whichever entry point loaded it.
 */
globalThis.svcEmulatorLoadedChunks ??= new Map<string, Loaded>();
const loaded = globalThis.svcEmulatorLoadedChunks;

declare global {
  /** The table above, where both copies of this module find it. */
  var svcEmulatorLoadedChunks: Map<string, { exports: unknown }> | undefined;
}

const toWrite: Compiled[] = [];
let tag = 'api';
let cacheDir: string | null | undefined;
let writeScheduled = false;

/** An ES module's `import()`, for the chunks' dynamic imports of dependencies (resolved alike from dist/). */
const svcImport = (specifier: string): Promise<unknown> => import(specifier);

/**
 * Which kind of start this process is, for the caches of the chunks it loads from now on: `api` (the
 * package's import, the default) or the CLI's command word.
 */
export function setCodeCacheTag(value: string): void {
  if (/^[a-z][a-z0-9-]{0,29}$/.test(value)) tag = value;
}

/** The exports of the CommonJS chunk at `file` (a path, or a file: URL), run once per process. */
export function loadChunk(file: string | URL): unknown {
  const at = typeof file === 'string' ? file : process.getBuiltinModule('node:url').fileURLToPath(file);
  const known = loaded.get(at);
  if (known) return known.exports;
  if (process.sourceMapsEnabled || usableCacheDir() === null) return nodeRequire(at);
  return run(at);
}

function nodeRequire(file: string): unknown {
  const exports: unknown = createRequire(file)(file);
  loaded.set(file, { exports });
  return exports;
}

function run(file: string): unknown {
  const module: Loaded = { exports: {} };
  loaded.set(file, module);
  const source = fs().readFileSync(file, 'utf8');
  const cacheFile = path().join(usableCacheDir()!, `${path().basename(file, '.cjs')}.${tag}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs().readFileSync(cacheFile);
  } catch {
    cachedData = undefined; // none yet: compiled from source, and its cache written later
  }
  const wrapper = `(function (exports, require, module, __filename, __dirname, __svcImport) {${source}\n})`;
  const script = new (process.getBuiltinModule('node:vm').Script)(wrapper, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) scheduleWrite({ script, cacheFile });
  const dir = path().dirname(file);
  const requireFrom = createRequire(file);
  const require = (specifier: string): unknown =>
    specifier.startsWith('./') || specifier.startsWith('../') ? loadChunk(path().resolve(dir, specifier)) : requireFrom(specifier);
  try {
    // The wrapper above: the chunk's code as a function of the CommonJS names.
    const wrapped: unknown = script.runInThisContext();
    if (typeof wrapped !== 'function') throw new Error(`svc bug: ${file} did not compile to a function`);
    Reflect.apply(wrapped, module.exports, [module.exports, require, module, file, dir, svcImport]);
  } catch (error) {
    loaded.delete(file);
    throw error;
  }
  return module.exports;
}

/** The cache folder, made once (mode 0700); null when it cannot be, or caching is off. */
function usableCacheDir(): string | null {
  if (cacheDir !== undefined) return cacheDir;
  const dir = process.env.NODE_DISABLE_COMPILE_CACHE ? null : codeCacheDir();
  try {
    if (dir) fs().mkdirSync(dir, { recursive: true, mode: 0o700 });
    cacheDir = dir;
  } catch {
    cacheDir = null;
  }
  return cacheDir;
}

/**
 * Writes the caches still missing once the start has run: at exit (a command that succeeded), or
 * 1.5 s after the first chunk loaded (a process that keeps running: `svc dev`, a test suite).
 */
function scheduleWrite(compiled: Compiled): void {
  toWrite.push(compiled);
  if (writeScheduled) return;
  writeScheduled = true;
  setTimeout(writeCaches, 1500).unref();
  process.once('exit', (code) => {
    if (code === 0) writeCaches();
  });
}

function writeCaches(): void {
  const written: string[] = [];
  for (const { script, cacheFile } of toWrite.splice(0)) {
    if (!cacheFile) continue;
    written.push(cacheFile);
    // Whole, then renamed: another process reading it never sees half a file.
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    try {
      fs().writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      fs().renameSync(tmp, cacheFile);
    } catch {
      // A full disk or a folder gone: the next start compiles from source and tries again.
      fs().rmSync(tmp, { force: true });
    }
  }
  if (written.length > 0) pruneOtherBuilds(written);
}

/** A cache's chunk and kind of start, without the chunk's content hash: `main.exec.v8`. */
const stemOf = (name: string): string => name.replace(/-[\w-]{8}(\.[a-z][a-z0-9-]*\.v8)$/, '$1');
const WEEK_MS = 7 * 24 * 3600 * 1000;

/**
 * Caches are written only for a chunk that had none, which is mostly the first start of a new build
 * (an upgrade, a rebuild): then the previous build's caches go, so the folder does not grow by a
 * build's worth each time. A cache of the same chunk and kind of start under another content hash is
 * another build's; a chunk whose name changes with its content (esbuild's shared `chunk-…`) cannot be
 * matched so, and its cache goes once it is a week old. A cache removed while another svc still uses
 * it costs that svc one start compiled from source, after which it writes it again.
 */
function pruneOtherBuilds(written: string[]): void {
  const dir = path().dirname(written[0]!);
  const kept = new Set(written.map((file) => path().basename(file)));
  const stems = new Set([...kept].map(stemOf));
  const now = Date.now();
  try {
    for (const name of fs().readdirSync(dir)) {
      if (kept.has(name) || !(name.endsWith('.v8') || name.endsWith('.tmp'))) continue;
      const file = path().join(dir, name);
      if (stems.has(stemOf(name)) || now - fs().statSync(file).mtimeMs > WEEK_MS) fs().rmSync(file, { force: true });
    }
  } catch {
    // Another process pruned first, or the folder went: nothing to do.
  }
}
