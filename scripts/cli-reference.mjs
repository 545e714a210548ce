#!/usr/bin/env node
// Regenerates the command reference in docs/cli.md (between the cli-reference markers) from the built
// command definitions. `npm run docs:cli` builds first; `--check` only reports whether it is current.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const { cliReference, withReference, REFERENCE_COMMAND } = await import('../dist/cli/reference.js');
const docPath = fileURLToPath(new URL('../docs/cli.md', import.meta.url));
const doc = fs.readFileSync(docPath, 'utf8');
const updated = withReference(doc, cliReference());

if (process.argv.includes('--check')) {
  if (updated !== doc) {
    console.error(`docs/cli.md's command reference is out of date: run \`${REFERENCE_COMMAND}\`.`);
    process.exit(1);
  }
  console.log("docs/cli.md's command reference is up to date.");
} else if (updated === doc) {
  console.log("docs/cli.md's command reference is already up to date.");
} else {
  fs.writeFileSync(docPath, updated);
  console.log("Updated docs/cli.md's command reference.");
}
