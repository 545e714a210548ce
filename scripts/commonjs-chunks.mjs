// dist/ as CommonJS chunks behind ES module entry points, so that src/entry/chunk-loader.ts can load
// the chunks through vm.Script with a code cache made after they ran (Node's own compile cache is made
// before a module runs, and holds none of the functions a start calls; docs/performance.md).
//   - rollup writes the chunks as CommonJS (`.cjs`): a dynamic import of another chunk becomes a
//     `require` (the loader's), a dynamic import of a dependency goes to the loader's `__svcImport`
//     (an ES module's own `import()`: vm.Script's would need an experimental option), or to the
//     chunk's own `import()` when Node's require loaded it (source maps on: stacks name src/).
//   - each entry point (dist/index.js, dist/cli/main.js, …) is a small ES module that loads its
//     chunk through dist/runtime.js and exports what the entry's source module exports.
import fs from 'node:fs';
import path from 'node:path';

/**
 * rollup plugin: dynamic imports of dependencies as described above (ours become `require`:
 * dynamicImportInCjs false). A dynamic import of one of `synchronous` (modules of the stage) is
 * rendered as a `require` whose result is at hand at once: an object holding the module (`value`)
 * whose `then` calls its callback at once (rollup chains one to pick the module's namespace out of
 * its chunk), which `await` and `Promise.resolve()` take as they take a promise. Code that must have
 * a module synchronously reads `value` (src/server/validation/schemas.ts, the only one).
 */
export function dependencyImports(synchronous = new Set()) {
  const settled =
    '(function (load) { function settled(value) { return { value: value, then: function (f) { return settled(f(value)); } }; } return settled(load()); })(function () { return require(';
  return {
    name: 'dependency-imports',
    renderDynamicImport({ targetModuleId }) {
      if (targetModuleId && synchronous.has(targetModuleId)) return { left: settled, right: '); })' };
      if (targetModuleId && this.getModuleInfo(targetModuleId)?.isExternal === false) return null;
      return { left: "(typeof __svcImport === 'function' ? __svcImport : (s) => import(s))(", right: ')' };
    },
  };
}

/**
 * Writes each entry point's ES module: `dist/<name>.js` loading its chunk (`files`: by entry name,
 * the chunk's file under dist/, `<name>-<hash>.cjs`). `exportsOf(name)` lists what the entry's source
 * module exports (esbuild's metafile); the CLI's sets the code cache's kind of start from the
 * command word (src/entry/chunk-loader.ts).
 */
export function writeEntryModules(dist, files, exportsOf) {
  for (const [name, chunkFile] of Object.entries(files)) {
    const file = path.join(dist, `${name}.js`);
    const runtime = path.relative(path.dirname(file), path.join(dist, 'runtime.js')).replaceAll(path.sep, '/');
    const exported = exportsOf(name);
    const lines = [
      `// ${name}: loads ${path.basename(chunkFile)} with the code cache (src/entry/chunk-loader.ts, scripts/commonjs-chunks.mjs).`,
      `import { loadChunk${name === 'cli/main' ? ', setCodeCacheTag' : ''} } from ${JSON.stringify(runtime.startsWith('.') ? runtime : `./${runtime}`)};`,
      // The CLI's kind of start is its command word; without one (`svc --help`), `cli`: never the
      // package's `api`, whose caches a CLI run would otherwise make, holding none of a start's functions.
      ...(name === 'cli/main'
        ? ["const word = process.argv.slice(2).find((a) => !a.startsWith('-'));", "setCodeCacheTag('cli');", 'if (word) setCodeCacheTag(word);']
        : []),
      `const chunk = loadChunk(new URL(${JSON.stringify(`./${path.basename(chunkFile)}`)}, import.meta.url));`,
      ...(exported.includes('default') ? ['export default chunk.default;'] : []),
      ...(exported.some((e) => e !== 'default') ? [`export const { ${exported.filter((e) => e !== 'default').join(', ')} } = chunk;`] : []),
    ];
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
  }
}
