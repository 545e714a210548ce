#!/usr/bin/env node
// npm run build: dist/ as the package ships it, built for a quick start (docs/performance.md, #12, #13).
//   1. Declarations only from tsc (it also type-checks): the consumer test type-checks them.
//   2. The store's SQL compiled (src/store/compile.ts): every statement of src/store/repos/ and the
//      statements each frozen migration runs, so that dist/ never loads kysely. A fresh database
//      migrated by those statements, serialized (dist/store/empty.sqlite): an in-memory emulator
//      starts from it instead of running the migrations (src/store/sqlite/empty-image.ts).
//   3. One esbuild bundle, ES modules with code splitting and source maps: the entry points below,
//      the commands the CLI loads lazily as chunks of their own, and the dependencies on the start-up
//      path inside. Loading a few files instead of a few hundred modules halves an import; what stays
//      outside is native (better-sqlite3), loaded only when used (undici, cosmiconfig, cloudflared),
//      or never loaded at run time (kysely). Each entry point runs src/runtime.ts first, which turns on
//      Node's own compile cache (module.enableCompileCache) in the user's cache folder: nothing of
//      ours loads code, and the source maps give stack traces with src/ paths (SVC_DEBUG=1 for the CLI).
//      Rollup then merges esbuild's chunks (mergeChunks below): each ES module a start loads has a
//      cost of its own, and esbuild splits shared code into one chunk per set of importers. The
//      chunks on the starts users wait for go together by which of those starts load them
//      (scripts/hot-chunks.mjs): `svc dev` loads 5 modules, `svc invoices create` 3.
//   4. The typed client (svc-emulator/client) on its own, as one plain ES module: it runs wherever
//      fetch does, without Node's file system.
//   5. The rules the dashboard shares with the server and the CLI (src/entry/page-rules.ts), the same way.
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { rollup } from 'rollup';
import { dependencyImports, writeEntryModules } from './commonjs-chunks.mjs';
import { hotChunks } from './hot-chunks.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const cache = path.join(root, 'node_modules', '.cache', 'svc-build');
/** esbuild's output, before rollup merges its small chunks into dist/. */
const stage = path.join(cache, 'stage');

/**
 * Entry points by output name: the API and the CLI (bin/svc.js), each behind src/entry/ (the runtime
 * check first); src/runtime.ts alone for bin/svc.js's --version; and two modules scripts and tests load.
 */
const ENTRIES = {
  index: 'src/entry/index.ts',
  'cli/main': 'src/entry/cli.ts',
  'cli/reference': 'src/cli/reference.ts', // scripts/cli-reference.mjs
  'store/store': 'src/store/sqlite/store.ts', // test/reliability/lib/open-store-child.mjs
};
/** The oldest Node the output must run on (CONTRACT §11). */
const TARGET = 'node22.12';
/**
 * Dependencies left to Node's resolver: better-sqlite3 (native), kysely (only the sources run it),
 * undici (loaded for the first webhook delivery or event stream), cosmiconfig (loaded only when a
 * config file is searched for; it brings TypeScript along), cloudflared (a binary's installer) and
 * viem (loaded only with local chains, `--chains`, where users' own code shares it).
 */
const EXTERNAL = ['better-sqlite3', 'kysely', 'undici', 'cosmiconfig', 'cloudflared', 'viem'];

const started = performance.now();
fs.rmSync(dist, { recursive: true, force: true });
fs.rmSync(stage, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: root,
  stdio: 'inherit',
});
if (tsc.status !== 0) fail(`tsc -p tsconfig.build.json --emitDeclarationOnly exited ${tsc.status}`);

/** The empty, migrated database an in-memory emulator starts from: made by compileSql, written into dist/. */
let emptyImage;
const compiled = await compileSql();
const injected = new Set();
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: Object.entries(ENTRIES).map(([out, file]) => ({ in: file, out })),
  outdir: stage,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: TARGET,
  external: EXTERNAL,
  chunkNames: 'chunks/[name]-[hash]',
  // Less to read and parse at every start (2248 -> 1666 KiB); identifiers stay, so stack traces
  // still name our functions.
  minifyWhitespace: true,
  minifySyntax: true,
  // Linked maps without the sources' text: a stack trace needs only positions and file names.
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  plugins: [builtinsByRequire(), statementKeys(injected), compiledSql(compiled), versionWritten()],
});
fs.mkdirSync(cache, { recursive: true });
fs.writeFileSync(path.join(cache, 'meta.json'), JSON.stringify(result.metafile));
for (const key of injected) {
  if (!compiled.statements[key] && !compiled.statements[`${key}/0`]) fail(`statement ${key} is in the bundle but was not compiled`);
}
const chunks = await mergeChunks();
fs.mkdirSync(path.dirname(emptyImage.file), { recursive: true });
fs.writeFileSync(emptyImage.file, emptyImage.bytes);
/** One file of its own, ES module unless asked, minified like the bundle: dist/runtime.js and the typed client. */
const single = (file, out, extra = {}) =>
  esbuild.build({
    absWorkingDir: root,
    entryPoints: [{ in: file, out }],
    outdir: dist,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: TARGET,
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    ...extra,
  });
// dist/runtime.js: the package's entry points run it before anything else (the Node check, then the
// compile cache it turns on, so it is itself compiled from source at every start: #8). dist/runtime.cjs
// is the same for bin/svc.js and dist/cli/main.cjs, CommonJS all the way (scripts/commonjs-chunks.mjs);
// the two share one table of loaded chunks (src/entry/chunk-loader.ts).
await single('src/entry/runtime.ts', 'runtime');
await single('src/entry/runtime.ts', 'runtime', { format: 'cjs', outExtension: { '.js': '.cjs' } });
await single('src/client/typed.ts', 'client', { sourcemap: 'linked', sourcesContent: false });
// The rules the dashboard shares with the server and the CLI (test actions, durations), for the browser.
await single('src/entry/page-rules.ts', 'page-rules', { platform: 'browser' });
const bytes = Object.entries(result.metafile.outputs).reduce((n, [f, o]) => n + (f.endsWith('.js') ? o.bytes : 0), 0);
console.log(
  `dist/: ${chunks} modules, ${(bytes / 1024).toFixed(0)} KiB of JavaScript with source maps, ` +
    `${Object.keys(compiled.statements).length} statements and ${Object.keys(compiled.migrations).length} migrations compiled, ` +
    `in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

function fail(message) {
  console.error(`build failed: ${message}`);
  process.exit(1);
}

/**
 * Compiles the store's SQL: bundles src/store/compile.ts with every module of src/store/repos/ (the
 * keys injected as in the real bundle), runs it, and returns its table.
 */
async function compileSql() {
  const repos = statementFiles();
  const keys = new Set();
  const outfile = path.join(cache, 'compile-sql.mjs');
  await esbuild.build({
    absWorkingDir: root,
    stdin: {
      contents: [
        ...repos.map((f) => `import './${f}';`),
        "export { compileSql } from './src/store/compile.ts';",
        "export { buildEmptyImage, EMPTY_IMAGE_FILE } from './src/store/sqlite/empty-image.ts';",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    logLevel: 'warning',
    plugins: [statementKeys(keys)],
  });
  const compiler = await import(`${pathToFileURL(outfile).href}?${Date.now()}`);
  const table = await compiler.compileSql();
  for (const key of keys) {
    if (!table.statements[key] && !table.statements[`${key}/0`]) fail(`statement ${key} did not register itself when compiled`);
  }
  // An in-memory database starts from this image instead of running the migrations (src/store/sqlite/empty-image.ts).
  emptyImage = { file: path.join(root, compiler.EMPTY_IMAGE_FILE), bytes: await compiler.buildEmptyImage(table.migrations) };
  return table;
}

/** The files whose statements the build compiles: the repositories, and SQLite's own claims. */
function statementFiles() {
  const repos = fs.readdirSync(path.join(src, 'store', 'repos')).filter((f) => f.endsWith('.ts'));
  return [...repos.map((f) => `src/store/repos/${f}`), 'src/store/sqlite/claims.ts'];
}

/**
 * Gives each statement of src/store/repos/ (and src/store/sqlite/claims.ts) its key: `prepared(` becomes `prepared("repos/invoices#2", `
 * (the third statement of that file), in the compile step and in the bundle alike, so that the
 * bundle finds each statement's SQL in the table without building it.
 */
function statementKeys(keys) {
  return {
    name: 'statement-keys',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]store[\\/](repos[\\/][^\\/]+|sqlite[\\/]claims)\.ts$/ }, (args) => {
        const name = `${path.basename(path.dirname(args.path))}/${path.basename(args.path, '.ts')}`;
        let n = 0;
        const contents = fs.readFileSync(args.path, 'utf8').replace(/\b(prepared|preparedByShape)(<[^>()]*>)?\(/g, (_, fn, generics = '') => {
          const key = `${name}#${n++}`;
          keys.add(key);
          return `${fn}${generics}(${JSON.stringify(key)}, `;
        });
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** Writes package.json's version into src/version.ts: dist/ does not read package.json to know it. */
function versionWritten() {
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (typeof version !== 'string') fail('package.json has no "version"');
  return {
    name: 'version-written',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]version\.ts$/ }, (args) => {
        const source = fs.readFileSync(args.path, 'utf8');
        const read = /^export const VERSION: string = .*;$/m;
        if (!read.test(source)) fail(`${path.relative(root, args.path)} no longer sets VERSION on one line`);
        return { contents: source.replace(read, `export const VERSION: string = ${JSON.stringify(version)};`), loader: 'ts' };
      });
    },
  };
}

/** Replaces src/store/compiled.ts's `null` with the compiled table. */
function compiledSql(table) {
  return {
    name: 'compiled-sql',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]store[\\/]compiled\.ts$/ }, (args) => {
        const source = fs.readFileSync(args.path, 'utf8');
        const placeholder = 'export const COMPILED: CompiledSql | null = null;';
        if (!source.includes(placeholder)) fail(`${path.relative(root, args.path)} no longer holds "${placeholder}"`);
        return { contents: source.replace(placeholder, `export const COMPILED: CompiledSql | null = ${JSON.stringify(table)};`), loader: 'ts' };
      });
    },
  };
}

/**
 * Node's built-in modules through process.getBuiltinModule(), not import. An ES module import of a
 * built-in makes Node build its ES module facade, which reads every export, getters included:
 * `node:http`'s read loads Node's bundled undici (~10 ms of each start, for fetch and WebSocket that
 * svc's start does not use). A CommonJS stand-in per built-in lets esbuild read each export only where
 * it is used; the CommonJS dependencies bundled in (commander, …) get the same stand-ins for their
 * require() calls, so no chunk needs a require of its own.
 */
function builtinsByRequire() {
  const names = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  return {
    name: 'builtins-by-require',
    setup(build) {
      build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
        if (!names.has(args.path) || args.namespace === 'svc-builtin') return undefined;
        return { path: args.path.replace(/^node:/, ''), namespace: 'svc-builtin' };
      });
      build.onLoad({ filter: /.*/, namespace: 'svc-builtin' }, (args) => ({ contents: standIn(args.path), loader: 'js' }));
    },
  };
}

/**
 * Built-ins that Node's start-up has not loaded already, and that a command may never touch
 * (commander requires child_process for executable subcommands svc does not have; the CLI's shared
 * chunk holds net, crypto and perf_hooks for the server): their stand-in loads the built-in on the
 * first read of an export, not when the chunk is evaluated. And util, fs and buffer, which every
 * start loads anyway: esbuild's interop lists a module's exports with their property descriptors,
 * and some of theirs are V8 lazy data properties that load a module when described (util's
 * parseArgs, diff and setTraceSigInt brought 14 modules, worker_threads among them, into every
 * command); a stand-in's getters describe nothing. Only plain namespace objects are listed: a
 * built-in that is itself a function (assert, events) or that code writes to (process) stays eager.
 */
// (A function, not a const: the build runs at the top of this module, above this line.)
function isLazyBuiltin(name) {
  return [
    'buffer',
    'child_process',
    'crypto',
    'dgram',
    'dns',
    'fs',
    'fs/promises',
    'http',
    'http2',
    'https',
    'net',
    'os',
    'perf_hooks',
    'readline',
    'tls',
    'tty',
    'util',
    'v8',
    'vm',
    'worker_threads',
    'zlib',
  ].includes(name);
}

/**
 * The CommonJS stand-in for one built-in: the module itself, or an object whose prototype loads it on
 * the first read of an export. On the prototype, not the object: each module that imports a built-in
 * gets esbuild's `__toESM` copy of it, which inherits the prototype and copies only own properties;
 * with a getter per export copied per importer (fs has ~100 exports, and dozens of modules import fs
 * or path), the copies were ~2 ms of every start. The prototype is a Proxy, not an object holding a
 * getter per export: defining those at every start was ~0.4 ms of it (fs's alone 0.16). It answers
 * every export by name; `__esModule`, `then` and symbols are not exports, and load nothing.
 */
function standIn(name) {
  const specifier = JSON.stringify(`node:${name}`);
  if (!isLazyBuiltin(name)) {
    // Loaded now. A namespace object (path, url, …) is handed over as the prototype of an empty one,
    // for the same reason as above: `__toESM` then copies nothing (~0.2 ms of every start). A module
    // that is a function (events, stream, module) or that code writes to (process) is itself.
    const builtin = process.getBuiltinModule(`node:${name}`);
    const plain = typeof builtin === 'object' && builtin !== null && name !== 'process';
    return `module.exports = ${plain ? `Object.create(process.getBuiltinModule(${specifier}))` : `process.getBuiltinModule(${specifier})`};`;
  }
  return [
    'let m;',
    `const load = () => (m ??= process.getBuiltinModule(${specifier}));`,
    "const notExport = (key) => typeof key !== 'string' || key === '__esModule' || key === 'then';",
    'module.exports = Object.create(',
    '  new Proxy({}, { get: (_, key) => (notExport(key) ? undefined : load()[key]), has: (_, key) => !notExport(key) && key in load() }),',
    ');',
  ].join('\n');
}

/**
 * The modules whose dynamic import dist/ renders synchronously (scripts/commonjs-chunks.mjs): the
 * request schemas, which the in-process API reads synchronously when first needed
 * (src/server/validation/schemas.ts). As stage files, rollup's module ids.
 */
function synchronousImports() {
  const sources = ['src/server/validation/loaded-schemas.ts'];
  return new Set(
    sources.map((source) => {
      const file = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === source)?.[0];
      if (!file) fail(`${source} is not a dynamic import any more: src/server/validation/schemas.ts loads it (scripts/build.mjs)`);
      return path.resolve(root, file);
    }),
  );
}

/**
 * Rollup over esbuild's output: the same modules, fewer of them. esbuild makes one chunk per set of
 * importers, which for the CLI's lazy commands means many small ones (27 for one command). rollup's
 * experimentalMinChunkSize merges each chunk under MIN_CHUNK into the chunk that adds the least
 * unused code, but with no bound on that: at 30,000 it merged the config search into the YAML
 * parser's chunk, and every command loaded and ran 166 KB of YAML (~9 ms of CPU on Node 24). So
 * every chunk of MIN_CHUNK or more is marked as having side effects ('no-treeshake': tree-shaking is
 * off anyway), which rollup never lets a merge run where they did not run before: small chunks merge
 * with each other, or into a big chunk only where it is loaded anyway; none loads a library it
 * does not use. Before that, the chunks of the hot starts go together (scripts/hot-chunks.mjs, as
 * rollup's manualChunks; marked the same way, so nothing else merges into them), and a group that
 * holds an entry point is that entry's file (preserveEntrySignatures 'allow-extension': dist/cli/
 * main.js exports a few more names, which only dist/'s own chunks import). No tree-shaking (esbuild
 * did it); source maps chained through, so stacks still name src/. Returns the number of modules written.
 */
async function mergeChunks() {
  const MIN_CHUNK = 30_000;
  const hot = hotChunks(result.metafile, stage, root);
  const bundle = await rollup({
    input: Object.fromEntries(Object.keys(ENTRIES).map((out) => [out, path.join(stage, `${out}.js`)])),
    external: (id) => !id.startsWith('.') && !path.isAbsolute(id),
    treeshake: false,
    preserveEntrySignatures: 'allow-extension',
    onLog: (level, log) => {
      if (level === 'warn') console.warn(`rollup: ${log.message}`);
    },
    plugins: [
      {
        name: 'esbuild-maps',
        load(id) {
          const map = `${id}.map`;
          const code = fs.readFileSync(id, 'utf8');
          return {
            code,
            map: fs.existsSync(map) ? JSON.parse(fs.readFileSync(map, 'utf8')) : null,
            ...(code.length >= MIN_CHUNK || hot.isHot(id) ? { moduleSideEffects: 'no-treeshake' } : {}),
          };
        },
      },
      dependencyImports(synchronousImports()),
      {
        // A chunk's own file and folder as CommonJS has them: rollup renders these as undefined,
        // and `import.meta.url`'s stand-in (a pathToFileURL) costs ~0.1 ms of a start each time
        // (src/store/sqlite.ts, src/package-root.ts).
        name: 'import-meta-paths',
        resolveImportMeta: (property) => (property === 'filename' ? '__filename' : property === 'dirname' ? '__dirname' : null),
      },
    ],
  });
  const { output } = await bundle.write({
    dir: dist,
    format: 'cjs',
    sourcemap: true,
    // Every file a content hash in its name, entry points too: a code cache is looked up by the
    // file's name, and V8 checks only a source's length against it (src/entry/chunk-loader.ts).
    entryFileNames: '[name]-[hash].cjs',
    chunkFileNames: 'chunks/[name]-[hash].cjs',
    dynamicImportInCjs: false,
    manualChunks: hot.manualChunks,
    experimentalMinChunkSize: MIN_CHUNK,
  });
  await bundle.close();
  // Each entry point's ES module, exporting what its source module does (scripts/commonjs-chunks.mjs).
  const entryFiles = Object.fromEntries(output.filter((o) => o.type === 'chunk' && o.isEntry).map((o) => [o.name, o.fileName]));
  writeEntryModules(dist, entryFiles, (name) => result.metafile.outputs[path.relative(root, path.join(stage, `${name}.js`))].exports);
  return output.filter((o) => o.type === 'chunk').length;
}
