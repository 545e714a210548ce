#!/usr/bin/env node
// A few lines only. dist/runtime.js refuses an unsupported Node with one line and turns on Node's
// compile cache; then the built CLI (dist/cli/main.js imports the first, then loads the second).
// Source maps (stack traces with src/ paths) only when asked for, with --verbose or SVC_DEBUG=1: a
// start that never shows a stack does not pay for reading them.
const args = process.argv.slice(2);
// --version is answered before anything loads (dist/runtime.js and its compile cache cost ~3 ms of a
// 25 ms start): scripts call it often, and it needs only package.json, whose `engines` is the same check.
const version = args.length === 1 && (args[0] === '--version' || args[0] === '-V') ? supportedVersion() : null;
// fs.writeSync, not process.stdout: building the stdout stream is ~2 ms of CPU, a tenth of the start.
if (version) process.getBuiltinModule('node:fs').writeSync(1, `${version}\n`);
else {
  const debug = process.env.SVC_DEBUG;
  if ((debug && debug !== '0') || args.includes('--verbose')) process.setSourceMapsEnabled(true);
  // Its first import, dist/runtime.js, refuses an unsupported Node and turns the compile cache on
  // before the CLI's chunks load (src/entry/chunk-loader.ts): one import, not two in turn.
  const { main } = await import('../dist/cli/main.js');
  await main(args);
}

/** svc's version when this Node meets package.json's `engines.node` (">=22.12"), else null. */
function supportedVersion() {
  // Absent before Node 20.16 and 22.3, which are refused anyway, by dist/runtime.js with its line.
  const fs = process.getBuiltinModule?.('node:fs');
  if (!fs) return null;
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const [major, minor] = process.versions.node.split('.').map(Number);
  const [needMajor, needMinor] = /(\d+)\.(\d+)/.exec(pkg.engines.node).slice(1).map(Number);
  return major > needMajor || (major === needMajor && minor >= needMinor) ? pkg.version : null;
}
