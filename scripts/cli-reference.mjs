#!/usr/bin/env node
// Regenerates the command reference in README.md (between the cli-reference markers) from the built
// command definitions. `npm run docs:cli` builds first; `--check` only reports whether it is current.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const { cliReference, withReference, REFERENCE_COMMAND } = await import('../dist/cli/reference.js');
const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
const readme = fs.readFileSync(readmePath, 'utf8');
const updated = withReference(readme, cliReference());

if (process.argv.includes('--check')) {
  if (updated !== readme) {
    console.error(`README.md's command reference is out of date: run \`${REFERENCE_COMMAND}\`.`);
    process.exit(1);
  }
  console.log("README.md's command reference is up to date.");
} else if (updated === readme) {
  console.log("README.md's command reference is already up to date.");
} else {
  fs.writeFileSync(readmePath, updated);
  console.log("Updated README.md's command reference.");
}
