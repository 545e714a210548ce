#!/usr/bin/env node
// npm run build: dist/ as the package ships it, built for a quick start (docs/performance.md, #12, #13).
//   1. Declarations only from tsc (it also type-checks): the consumer test type-checks them.
//   2. The store's SQL compiled (src/store/compile.ts): every statement of src/store/repos/ and the
//      statements each frozen migration runs, so that dist/ never loads kysely.
//   3. One esbuild bundle, ESM with code splitting: the entry points below, the commands the CLI loads
//      lazily as chunks of their own, and the dependencies on the start-up path inside. Loading a
//      few files instead of a few hundred modules halves an import; what stays outside is native
//      (better-sqlite3), loaded only when used (undici, cosmiconfig, cloudflared), or never loaded
//      at run time (kysely).
//   4. Each file of that bundle converted to CommonJS (`.cjs`), loaded by dist/chunk-loader.js with
//      V8's code cache (scripts/chunk-loader.js says why); each entry point is a small ES module that
//      loads its chunk. Then scripts/code-cache.mjs runs svc's start-up paths and writes the cache.
//      No source maps: the chunks keep their names and identifiers, and stack traces name them.
//   5. The typed client (svc-emulator/client) on its own, as one plain ES module: it runs wherever
//      fetch does, without Node's file system.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const cache = path.join(root, 'node_modules', '.cache', 'svc-build');

/** Entry points by output name: the API, the CLI (bin/svc.js), and two modules scripts and tests load. */
const ENTRIES = {
  index: 'src/index.ts',
  'cli/main': 'src/cli/main.ts',
  'cli/reference': 'src/cli/reference.ts', // scripts/cli-reference.mjs
  'store/store': 'src/store/store.ts', // test/reliability/lib/open-store-child.mjs
};
/**
 * Dependencies left to Node's resolver: better-sqlite3 (native), kysely (only the sources run it),
 * undici (loaded for the first webhook delivery or event stream), cosmiconfig (loaded only when a
 * config file is searched for; it brings TypeScript along) and cloudflared (a binary's installer).
 */
const EXTERNAL = ['better-sqlite3', 'kysely', 'undici', 'cosmiconfig', 'cloudflared'];

const started = performance.now();
fs.rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: root,
  stdio: 'inherit',
});
if (tsc.status !== 0) fail(`tsc -p tsconfig.build.json --emitDeclarationOnly exited ${tsc.status}`);

const compiled = await compileSql();
const injected = new Set();
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: Object.entries(ENTRIES).map(([out, file]) => ({ in: file, out })),
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: EXTERNAL,
  chunkNames: 'chunks/[name]-[hash]',
  // Less to read and parse at every start (2248 -> 1666 KiB); identifiers stay, so stack traces
  // still name our functions.
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  write: false,
  logLevel: 'warning',
  plugins: [statementKeys(injected), compiledSql(compiled), moduleUrls()],
});
fs.mkdirSync(cache, { recursive: true });
fs.writeFileSync(path.join(cache, 'meta.json'), JSON.stringify(result.metafile));
for (const key of injected) {
  if (!compiled.statements[key] && !compiled.statements[`${key}/0`]) fail(`statement ${key} is in the bundle but was not compiled`);
}
const entryExports = new Map(
  Object.entries(result.metafile.outputs)
    .filter(([, output]) => Object.values(ENTRIES).includes(output.entryPoint)) // not the chunks loaded by import()
    .map(([file, output]) => [path.join(root, file), output.exports]),
);
for (const file of result.outputFiles.filter((f) => f.path.endsWith('.js'))) {
  const cjs = file.path.replace(/\.js$/, '.cjs');
  fs.mkdirSync(path.dirname(file.path), { recursive: true });
  fs.writeFileSync(cjs, await toCommonJs(resolveModuleUrls(file.path, file.text)));
  const exported = entryExports.get(file.path);
  if (exported) fs.writeFileSync(file.path, entryModule(file.path, cjs, exported));
}
fs.copyFileSync(path.join(root, 'scripts', 'chunk-loader.js'), path.join(dist, 'chunk-loader.js'));
await esbuild.build({
  absWorkingDir: root,
  entryPoints: [{ in: 'src/client/typed.ts', out: 'client' }],
  outdir: dist,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
const warm = spawnSync(process.execPath, [path.join(root, 'scripts', 'code-cache.mjs')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
if (warm.status !== 0) fail(`scripts/code-cache.mjs exited ${warm.status}`);
const bytes = result.outputFiles.filter((f) => f.path.endsWith('.js')).reduce((n, f) => n + f.contents.length, 0);
console.log(
  `dist/: ${result.outputFiles.filter((f) => f.path.endsWith('.js')).length} chunks, ${(bytes / 1024).toFixed(0)} KiB of JavaScript, ${warm.stdout.trim()}, ` +
    `${Object.keys(compiled.statements).length} statements and ${Object.keys(compiled.migrations).length} migrations compiled, ` +
    `in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

/**
 * An ES module chunk of the bundle as CommonJS for dist/chunk-loader.js: its imports of other chunks
 * name the `.cjs` files, and `import()` becomes `require` (code compiled by vm.Script cannot import).
 */
async function toCommonJs(text) {
  const relinked = text.replace(/((?:\bfrom|\bimport)\s*\(?\s*)"(\.{1,2}\/[^"]+)\.js"/g, '$1"$2.cjs"');
  const out = await esbuild.transform(relinked, {
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__svcUrl' },
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
  return out.code;
}

/** An entry point: an ES module that loads its CommonJS chunk and exports what the entry exports. */
function entryModule(file, cjs, exported) {
  const loader = path.relative(path.dirname(file), path.join(dist, 'chunk-loader.js')).replace(/\\/g, '/');
  const lines = [
    `import { load } from ${JSON.stringify(loader.startsWith('.') ? loader : `./${loader}`)};`,
    "import { fileURLToPath } from 'node:url';",
    `const chunk = load(fileURLToPath(new URL(${JSON.stringify(`./${path.basename(cjs)}`)}, import.meta.url)));`,
    ...exported.map((name) => (name === 'default' ? 'export default chunk.default;' : `export const ${name} = chunk.${name};`)),
  ];
  return `${lines.join('\n')}\n`;
}

function fail(message) {
  console.error(`build failed: ${message}`);
  process.exit(1);
}

/**
 * Compiles the store's SQL: bundles src/store/compile.ts with every module of src/store/repos/ (the
 * keys injected as in the real bundle), runs it, and returns its table.
 */
async function compileSql() {
  const repos = fs.readdirSync(path.join(src, 'store', 'repos')).filter((f) => f.endsWith('.ts'));
  const keys = new Set();
  const outfile = path.join(cache, 'compile-sql.mjs');
  await esbuild.build({
    absWorkingDir: root,
    stdin: {
      contents: [...repos.map((f) => `import './src/store/repos/${f}';`), "export { compileSql } from './src/store/compile.ts';"].join('\n'),
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
  const table = await (await import(`${pathToFileURL(outfile).href}?${Date.now()}`)).compileSql();
  for (const key of keys) {
    if (!table.statements[key] && !table.statements[`${key}/0`]) fail(`statement ${key} did not register itself when compiled`);
  }
  return table;
}

/**
 * Gives each statement of src/store/repos/ its key: `prepared(` becomes `prepared("repos/invoices#2", `
 * (the third statement of that file), in the compile step and in the bundle alike, so that the
 * bundle finds each statement's SQL in the table without building it.
 */
function statementKeys(keys) {
  return {
    name: 'statement-keys',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]store[\\/]repos[\\/][^\\/]+\.ts$/ }, (args) => {
        const name = `repos/${path.basename(args.path, '.ts')}`;
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
 * `import.meta.url` of a module that finds files beside the package (package.json, templates/,
 * assets/) by a path relative to itself: bundled, the module sits in another file at another depth.
 * The plugin marks it with the module's path under dist/, and the marks become URLs relative to the
 * output file each lands in (resolveModuleUrls), so `../package.json` still means the package's.
 */
function moduleUrls() {
  return {
    name: 'module-urls',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
        const source = fs.readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const asBuilt = path.relative(src, args.path).replace(/\\/g, '/').replace(/\.ts$/, '.js');
        return { contents: source.replaceAll('import.meta.url', `__svcModuleUrl(${JSON.stringify(asBuilt)})`), loader: 'ts' };
      });
    },
  };
}

function resolveModuleUrls(file, text) {
  const from = path.relative(dist, path.dirname(file)).replace(/\\/g, '/');
  return text.replace(/__svcModuleUrl\("([^"]+)"\)/g, (_, asBuilt) => {
    const relative = path.posix.relative(from || '.', asBuilt);
    return `new URL(${JSON.stringify(relative.startsWith('.') ? relative : `./${relative}`)}, import.meta.url).href`;
  });
}
