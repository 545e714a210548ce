// dist/chunk-loader.js (copied there by scripts/build.mjs): loads dist/'s CommonJS chunks with V8's
// code cache, which Node 20 offers only to code compiled through vm.Script (its own compile cache,
// module.enableCompileCache(), came with Node 22). The build converts esbuild's ES module chunks to
// CommonJS and writes, beside each chunk, the code V8 compiled for it while the build ran svc's
// start-up paths (`<chunk>.v8`). A cache that does not fit (another Node, other V8 flags) is
// rejected by V8 and the chunk is compiled from source as usual.
//
// Chunks see the usual CommonJS names; `require('./chunk-….cjs')` comes back here, anything else
// goes to Node's own require (the package's dependencies, Node's built-ins).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

/** @type {Map<string, { exports: unknown }>} */
const modules = new Map();
/** @type {Array<[string, vm.Script]>} */
const compiled = [];

/**
 * The exports of the chunk at `file` (an absolute path), run once per process.
 * @param {string} file
 */
export function load(file) {
  const known = modules.get(file);
  if (known) return known.exports;
  const module = { exports: {} };
  modules.set(file, module);
  const source = fs.readFileSync(file, 'utf8');
  /** @type {Buffer | undefined} */
  let cachedData;
  try {
    cachedData = fs.readFileSync(`${file}.v8`);
  } catch {
    cachedData = undefined; // no cache for this chunk: compiled from source
  }
  const wrapper = `(function (exports, require, module, __filename, __dirname, __svcUrl) {"use strict";${source}\n})`;
  const script = new vm.Script(wrapper, { filename: file, cachedData });
  compiled.push([file, script]);
  const dir = path.dirname(file);
  const nodeRequire = createRequire(file);
  /** @param {string} specifier */
  const require = (specifier) => (specifier.startsWith('./') || specifier.startsWith('../') ? load(path.resolve(dir, specifier)) : nodeRequire(specifier));
  try {
    script.runInThisContext().call(module.exports, module.exports, require, module, file, dir, pathToFileURL(file).href);
  } catch (error) {
    modules.delete(file);
    throw error;
  }
  return module.exports;
}

/** The build's step: writes, for every chunk this process loaded, the code V8 has compiled for it so far. */
export function writeCodeCache() {
  for (const [file, script] of compiled) fs.writeFileSync(`${file}.v8`, script.createCachedData());
  return compiled.length;
}
