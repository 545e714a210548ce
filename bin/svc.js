#!/usr/bin/env node
// A few lines only, CommonJS (bin/package.json): dist/runtime.cjs refuses an unsupported Node with one
// line and turns on Node's compile cache; then the built CLI (dist/cli/main.cjs loads its chunk through
// it). No ES module on the way: Node's ES module loader costs a start ~1 ms to link this file and two
// more (bench #9, #12, #16). Source maps (stack traces with src/ paths) only when asked for, with
// --verbose or SVC_DEBUG=1: a start that never shows a stack does not pay for reading them.
'use strict';
const args = process.argv.slice(2);
// --version is answered before anything loads (dist/runtime.cjs and its compile cache cost ~3 ms of a
// 25 ms start): scripts call it often, and it needs only package.json, whose `engines` is the same check.
const version = args.length === 1 && (args[0] === '--version' || args[0] === '-V') ? supportedVersion() : null;
// fs.writeSync, not process.stdout: building the stdout stream is ~2 ms of CPU, a tenth of the start.
if (version) require('node:fs').writeSync(1, `${version}\n`);
else {
  const debug = process.env.SVC_DEBUG;
  if ((debug && debug !== '0') || args.includes('--verbose')) process.setSourceMapsEnabled(true);
  // Its first require, dist/runtime.cjs, refuses an unsupported Node and turns the compile cache on
  // before the CLI's chunks load (src/entry/chunk-loader.ts).
  require('../dist/cli/main.cjs').main(args);
}

/** svc's version when this Node meets package.json's `engines.node` (">=22.12"), else null. */
function supportedVersion() {
  const fs = require('node:fs');
  const pkg = JSON.parse(fs.readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8'));
  const [major, minor] = process.versions.node.split('.').map(Number);
  const [needMajor, needMinor] = /(\d+)\.(\d+)/.exec(pkg.engines.node).slice(1).map(Number);
  return major > needMajor || (major === needMajor && minor >= needMinor) ? pkg.version : null;
}
