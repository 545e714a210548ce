// Which of esbuild's chunks go together in dist/, for the starts a user waits for (bench #9, #12, #13,
// #16; docs/performance.md). Each ES module a start loads costs Node's loader about a millisecond of
// CPU (resolve, read, link, evaluate) whatever its size, and 100 KB of code a start does not run costs
// it about as much. esbuild makes one chunk per set of importers: `svc dev` loaded 18 of them. Here
// every esbuild chunk on a hot path is labelled with the hot paths that load it, and chunks with the
// same label become one module, so that a hot start loads a few modules each holding what it runs.
import path from 'node:path';

/**
 * The hot paths: an entry point, then the modules it imports dynamically on the way to what the user
 * waits for (the command's handler; the schemas that `startEmulator` loads beside the listen).
 */
export const HOT_PATHS = {
  dev: ['src/entry/cli.ts', 'src/cli/commands/dev.ts'],
  exec: ['src/entry/cli.ts', 'src/cli/commands/exec.ts'],
  create: ['src/entry/cli.ts', 'src/cli/commands/invoices/create.ts'],
  // The package's import, then `startEmulator`'s first call (src/entry/index.ts says why it is dynamic).
  import: ['src/entry/index.ts'],
  api: ['src/entry/index.ts', 'src/server/start.ts'],
  // The request schemas and zod: loaded by `startEmulator`, and by `svc dev`'s first request with a body.
  schemas: ['src/server/validation/loaded-schemas.ts'],
  // The routes, their handlers and the pipeline's stages: loaded by the first request (src/server/app.ts).
  serve: ['src/server/routes/index.ts', 'src/server/pipeline/index.ts'],
};

/**
 * The module a chunk goes to, by the hot paths that load it (`paths`, sorted). A few modules, each
 * loaded whole by the paths that need most of it: code a start loads and does not run costs less
 * than a module of its own. A module named as an entry point (cli/main, index) is that entry's file.
 */
function moduleFor(paths) {
  const has = (name) => paths.includes(name);
  const api = has('import') || has('api');
  const server = has('dev') || has('exec');
  const serve = has('serve');
  // What client commands, `svc dev` and the package all run: errors, the contract, the typed client.
  if (has('create') && (api || serve)) return 'shared-core';
  // What the package's import shares with `svc dev` or the routes (clocks, webhook signatures): small.
  if (has('import') && (server || serve)) return 'shared-core';
  // The package's entry itself (dist/index.js): the runtime check, `verify`'s loader.
  if (has('import')) return 'index';
  // The emulator's start: everything `startEmulator` and `svc dev` run before they listen.
  if (api || (serve && server)) return 'server-core';
  // The routes, their handlers and what only they use: loaded by the first request.
  if (serve) return 'serve';
  // The CLI: commander, the program, the output, `svc invoices create`'s handler (2 KB).
  if (has('create')) return 'cli/main';
  // `svc dev`'s and `svc exec`'s handlers together (exec's 8 KB unused by dev cost less than a module).
  if (server) return 'dev-exec';
  return paths.join('-');
}

/**
 * rollup's `manualChunks` for esbuild's output in `stage`: a hot chunk's merged module's name, or
 * undefined (rollup's own grouping) for everything else. `metafile` is esbuild's; a hot path naming a
 * module that is no longer an entry point or a dynamic import fails the build.
 */
export function hotChunks(metafile, stage, root) {
  const outputs = Object.fromEntries(Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js')));
  const byEntry = new Map(Object.entries(outputs).flatMap(([file, o]) => (o.entryPoint ? [[o.entryPoint, file]] : [])));
  const labels = new Map();
  for (const [name, seeds] of Object.entries(HOT_PATHS)) {
    const todo = seeds.map((seed) => {
      const file = byEntry.get(seed);
      if (!file) throw new Error(`hot path ${name}: ${seed} is not an entry point or a dynamic import any more (scripts/hot-chunks.mjs)`);
      return file;
    });
    const reached = new Set();
    while (todo.length > 0) {
      const file = todo.pop();
      if (reached.has(file)) continue;
      reached.add(file);
      for (const i of outputs[file].imports) if (i.kind === 'import-statement' && !i.external) todo.push(i.path);
    }
    for (const file of reached) labels.set(path.resolve(root, file), [...(labels.get(path.resolve(root, file)) ?? []), name]);
  }
  const chunkOf = new Map();
  for (const [file, paths] of labels) {
    // The schemas are never loaded alone (`startEmulator`, or `svc dev`'s first request): what they
    // share with the API or the server goes with those.
    const name = moduleFor((paths.length > 1 ? paths.filter((p) => p !== 'schemas') : paths).sort());
    if (name) chunkOf.set(file, name);
  }
  return {
    /** The merged module's name for a module of `stage`, or undefined. */
    manualChunks: (id) => (id.startsWith(stage) ? chunkOf.get(id) : undefined),
    /** Whether a module of `stage` is on a hot path. */
    isHot: (id) => chunkOf.has(id),
  };
}
