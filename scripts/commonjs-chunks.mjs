// dist/ as CommonJS chunks behind ES module entry points, so that src/entry/chunk-loader.ts can load
// the chunks through vm.Script with a code cache made after they ran (Node's own compile cache is made
// before a module runs, and holds none of the functions a start calls; docs/performance.md).
//   - rollup writes the chunks as CommonJS (`.cjs`): a dynamic import of another chunk becomes a
//     `require` (the loader's), a dynamic import of a dependency goes to the loader's `__svcImport`
//     (an ES module's own `import()`: vm.Script's would need an experimental option), or to the
//     chunk's own `import()` when Node's require loaded it (source maps on: stacks name src/).
//   - each entry point (dist/index.js, …) is a small ES module that loads its chunk through
//     dist/runtime.js and exports what the entry's source module exports; the CLI's is CommonJS,
//     dist/cli/main.cjs through dist/runtime.cjs, as bin/svc.js is.
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
 * Writes each entry point's module: `dist/<name>.js`, an ES module loading its chunk (`files`: by
 * entry name, the chunk's file under dist/, `<name>-<hash>.cjs`), which exports what the entry's
 * source module exports (`exportsOf(name)`, esbuild's metafile). The CLI's is CommonJS instead,
 * `dist/cli/main.cjs` through `dist/runtime.cjs`, as bin/svc.js is: a start with no ES module on
 * its way loads faster (Node's ES module loader links each one; bench #9, #12, #16); it sets the code
 * cache's kind of start from the command word (src/entry/chunk-loader.ts).
 */
export function writeEntryModules(dist, files, exportsOf) {
  for (const [name, chunkFile] of Object.entries(files)) {
    const cli = name === 'cli/main';
    const file = path.join(dist, `${name}.${cli ? 'cjs' : 'js'}`);
    const runtime = path.relative(path.dirname(file), path.join(dist, `runtime.${cli ? 'cjs' : 'js'}`)).replaceAll(path.sep, '/');
    const runtimeSpecifier = JSON.stringify(runtime.startsWith('.') ? runtime : `./${runtime}`);
    const chunkSpecifier = JSON.stringify(`./${path.basename(chunkFile)}`);
    const exported = exportsOf(name);
    const header = `// ${name}: loads ${path.basename(chunkFile)} with the code cache (src/entry/chunk-loader.ts, scripts/commonjs-chunks.mjs).`;
    const lines = cli
      ? [
          header,
          "'use strict';",
          `const { loadChunk, setCodeCacheTag } = require(${runtimeSpecifier});`,
          // The CLI's kind of start is its command word; without one (`svc --help`), `cli`: never the
          // package's `api`, whose caches a CLI run would otherwise make, holding none of a start's functions.
          "const word = process.argv.slice(2).find((a) => !a.startsWith('-'));",
          "setCodeCacheTag('cli');",
          'if (word) setCodeCacheTag(word);',
          `module.exports = loadChunk(require('node:path').join(__dirname, ${chunkSpecifier}));`,
        ]
      : [
          header,
          `import { loadChunk } from ${runtimeSpecifier};`,
          `const chunk = loadChunk(new URL(${chunkSpecifier}, import.meta.url));`,
          ...(exported.includes('default') ? ['export default chunk.default;'] : []),
          ...(exported.some((e) => e !== 'default') ? [`export const { ${exported.filter((e) => e !== 'default').join(', ')} } = chunk;`] : []),
        ];
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
  }
}
