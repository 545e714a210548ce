import { execFile, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Forks a helper process and resolves with it once it reported ready. */
export function start(script, args = []) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(here, script), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    child.once('message', (msg) => {
      child.removeAllListeners('exit');
      resolve({ child, ...msg, ask: (cmd) => ask(child, cmd), stop: () => stop(child) });
    });
  });
}

function ask(child, cmd) {
  return new Promise((resolve) => {
    const onMessage = (msg) => {
      if (msg.cmd === cmd) {
        child.off('message', onMessage);
        resolve(msg);
      }
    };
    child.on('message', onMessage);
    child.send({ cmd });
  });
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.send({ cmd: 'stop' });
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** Runs autocannon in its own process with the given config. */
export function load(config) {
  return runWorker('autocannon-worker.mjs', config);
}

/** Sends requests at a steady `rate` from its own process (see paced-worker.mjs for why). */
export function paced(config) {
  return runWorker('paced-worker.mjs', config);
}

function runWorker(script, config) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(here, script), JSON.stringify(config)], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${script} failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}
