#!/usr/bin/env node
// A few lines only: refuse an old Node with a clear message, then hand over to the built CLI.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`svc needs Node.js 20.19 or newer; this is ${process.version}.\n`);
  process.exit(1);
}
const { main } = await import('../dist/cli/main.js');
await main(process.argv.slice(2));
