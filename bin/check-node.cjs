// npm runs this first when svc is installed (`preinstall`): in a clone by `npm ci`, and in a project
// that installs the package. On a Node older than package.json's engines.node it prints the one line
// of CONTRACT §11 and exits 1, before anything of svc is built or loaded: `prepare` builds dist/ by
// loading better-sqlite3, which crashes an older Node (a segmentation fault, not a message).
// CommonJS with nothing but fs and path, in syntax every Node an npm of today runs on understands.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
const [, needMajor, needMinor] = /(\d+)\.(\d+)/.exec(pkg.engines.node).map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  // The same line as src/runtime.ts's, which every entry point prints on such a Node.
  process.stderr.write(`svc needs Node.js ${needMajor}.${needMinor} or newer (22, 24 or 26); this is Node.js ${process.versions.node}.\n`);
  process.exit(1);
}
