#!/usr/bin/env node
// The tests use real tools from Debian's packages: Chromium for the pages (never a downloaded
// browser), tmux for terminal prompts, zsh and fish to check their completion scripts. Install the
// missing ones when we may (root, or sudo without a password); otherwise say exactly what to run.
// The container project needs podman (with runc, and debootstrap for its Debian base); where they
// cannot be installed, that project skips itself with one line instead of failing the run.
// PostgreSQL (Debian's initdb/pg_ctl, in /usr/lib/postgresql/*/bin) for the PostgreSQL store's tests,
// which start throwaway servers of their own (test/helpers/postgres.ts).
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
const postgresBins = () => {
  try {
    return fs.readdirSync('/usr/lib/postgresql').some((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/initdb`));
  } catch {
    return false;
  }
};
const postgresMissing = !has('initdb') && !postgresBins();
if (postgresMissing) missing.push('postgresql');
// Docker users with a running daemon need none of these: the tests use whichever engine works.
const dockerWorks = () => {
  try {
    execSync('docker info', { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
};
const containerTools = {
  podman: 'podman',
  runc: 'runc',
  debootstrap: 'debootstrap',
  newuidmap: 'uidmap',
  slirp4netns: 'slirp4netns',
  'fuse-overlayfs': 'fuse-overlayfs',
};
const containerMissing = Object.entries(containerTools)
  .filter(([tool]) => !has(tool))
  .map(([, pkg]) => pkg);
if (containerMissing.length && !(has('docker') && dockerWorks())) missing.push(...containerMissing);
else containerMissing.length = 0;
if (!missing.length) process.exit(0);

let sudo = '';
if (process.getuid?.() !== 0) {
  try {
    execSync('sudo -n true', { stdio: 'ignore' });
    sudo = 'sudo -n ';
  } catch {
    const required = missing.filter((pkg) => !containerMissing.includes(pkg));
    if (!required.length) process.exit(0); // the container project skips itself, saying so
    console.error(`The tests need Debian packages that are missing: ${required.join(' ')}.\nInstall them with: sudo apt-get install -y ${missing.join(' ')}`);
    process.exit(1);
  }
}
console.error(`Installing ${missing.join(', ')} for the tests…`);
execSync(`${sudo}apt-get update -qq`, { stdio: 'inherit' });
if (postgresMissing) {
  // The server package would create and start a system-wide cluster on port 5432 that nothing uses:
  // its cluster manager's setting says not to, set before the server package is installed.
  execSync(`DEBIAN_FRONTEND=noninteractive ${sudo}apt-get install -y -qq postgresql-common`, { stdio: 'inherit', shell: '/bin/sh' });
  execSync(`${sudo}sed -i 's/^#\\?create_main_cluster.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf`, {
    stdio: 'inherit',
    shell: '/bin/sh',
  });
}
execSync(`DEBIAN_FRONTEND=noninteractive ${sudo}apt-get install -y -qq ${missing.join(' ')}`, { stdio: 'inherit', shell: '/bin/sh' });
