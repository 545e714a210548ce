#!/usr/bin/env node
// The tests use real tools from Debian's packages: Chromium for the pages (never a downloaded
// browser), tmux for terminal prompts, zsh and fish to check their completion scripts. Install the
// missing ones when we may (root, or sudo without a password); otherwise say exactly what to run.
import { execSync } from 'node:child_process';
import fs from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const has = (cmd) => {
  try {
    execSync(`command -v ${cmd}`, { stdio: 'ignore', shell: '/bin/sh' });
    return true;
  } catch {
    return false;
  }
};
const missing = [];
if (!fs.existsSync(chromium)) missing.push('chromium');
for (const tool of ['tmux', 'zsh', 'fish']) if (!has(tool)) missing.push(tool);
if (!missing.length) process.exit(0);

let sudo = '';
if (process.getuid?.() !== 0) {
  try {
    execSync('sudo -n true', { stdio: 'ignore' });
    sudo = 'sudo -n ';
  } catch {
    console.error(`The tests need Debian packages that are missing: ${missing.join(' ')}.\nInstall them with: sudo apt-get install -y ${missing.join(' ')}`);
    process.exit(1);
  }
}
console.error(`Installing ${missing.join(', ')} for the tests…`);
execSync(`${sudo}apt-get update -qq`, { stdio: 'inherit' });
execSync(`DEBIAN_FRONTEND=noninteractive ${sudo}apt-get install -y -qq ${missing.join(' ')}`, { stdio: 'inherit', shell: '/bin/sh' });
