#!/usr/bin/env node
// A few lines only. dist/runtime.js refuses an unsupported Node with one line and turns on Node's
// compile cache; then the built CLI. Source maps (stack traces with src/ paths) only when asked for,
// with --verbose or SVC_DEBUG=1: a start that never shows a stack does not pay for reading them.
await import('../dist/runtime.js');
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered before loading the CLI: scripts call this often, and it needs nothing else.
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const debug = process.env.SVC_DEBUG;
  if ((debug && debug !== '0') || args.includes('--verbose')) process.setSourceMapsEnabled(true);
  const { main } = await import('../dist/cli/main.js');
  await main(args);
}
