#!/usr/bin/env node
// A few lines only: refuse an old Node with a clear message, then hand over to the built CLI.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`svc needs Node.js 20.19 or newer; this is ${process.version}.\n`);
  process.exit(1);
}
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered before loading the CLI: scripts call this often, and it needs nothing else.
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const { main } = await import('../dist/cli/main.js');
  await main(args);
}
