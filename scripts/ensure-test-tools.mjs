#!/usr/bin/env node
// Browser tests drive Debian's Chromium (never a downloaded one). Install it when it is missing and
// we may (root, or sudo without a password); otherwise say exactly what to run.
import { execSync } from 'node:child_process';
import fs from 'node:fs';

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (fs.existsSync(path)) process.exit(0);

const run = (cmd) => execSync(cmd, { stdio: 'inherit' });
const isRoot = process.getuid?.() === 0;
let sudo = '';
if (!isRoot) {
  try {
    execSync('sudo -n true', { stdio: 'ignore' });
    sudo = 'sudo -n ';
  } catch {
    console.error(`Chromium is needed for the browser tests and is not at ${path}.\nInstall it with: sudo apt-get install -y chromium   (or set CHROMIUM_PATH)`);
    process.exit(1);
  }
}
console.error('Installing Debian’s chromium for the browser tests…');
run(`${sudo}apt-get update -qq`);
run(`DEBIAN_FRONTEND=noninteractive ${sudo}apt-get install -y -qq chromium`);
