import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { UserError } from '../errors.js';

/** One running anvil node: where it listens, and how to stop it. */
export interface AnvilNode {
  /** The chain id it was started with. */
  readonly chainId: number;
  /** `http://127.0.0.1:<port>`: JSON-RPC over HTTP. */
  readonly url: string;
  /** `ws://127.0.0.1:<port>`: the same node over WebSocket (subscriptions). */
  readonly wsUrl: string;
  readonly pid: number | undefined;
  /** Set when the process ended (stopped, or died: then the last lines it wrote say why). */
  readonly exit: { code: number | null; signal: string | null; output: string } | null;
  /** Ends the process and resolves once it is gone (SIGTERM, then SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

const START_TIMEOUT_MS = 15_000;
const LISTENING = /Listening on ([^\s:]+):(\d+)/;

/** Every node this process started and has not seen end: killed if the process exits without stopping them. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Nodes run in a process group of their own (`detached`), so a Ctrl-C in the terminal reaches svc
 * alone, which saves their state and then stops them. Whatever way svc's process ends (an uncaught
 * error, `process.exit`), its nodes go with it: SIGKILL from the `exit` event, synchronous.
 * A SIGKILL of svc runs nothing of ours: on Linux the kernel ends them then (see `withParentDeath`).
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) {
      try {
        child.kill('SIGKILL');
      } catch {}
    }
  });
}

/**
 * Starts anvil on a free loopback port with `chainId`, automining (each transaction in a block of its
 * own, at once), with its ten default accounts at 10,000 ETH. CORS is off: browsers reach the node
 * only through svc's proxy, which refuses other sites (CONTRACT §8, §14).
 */
export async function startAnvilNode(binary: string, chainId: number): Promise<AnvilNode> {
  installExitHook();
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId), '--no-cors', '--accounts', '10', '--balance', '10000'];
  const [file, argv] = withParentDeath(binary, args);
  const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, windowsHide: true });
  running.add(child);
  // The last lines it wrote, for the message when it fails; everything after "Listening" is discarded.
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-2000);
  };
  let exit: AnvilNode['exit'] = null;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      exit = { code, signal, output: output.trim() };
      resolve();
    });
  });
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new UserError(`anvil (chain ${chainId}) did not start within ${START_TIMEOUT_MS / 1000} s`, 'chain_start_failed')),
        START_TIMEOUT_MS,
      );
      const onData = (chunk: Buffer) => {
        keep(chunk);
        const m = LISTENING.exec(output);
        if (!m) return;
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(Number(m[2]));
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', keep);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new UserError(`anvil (${binary}) could not be started: ${error.message}`, 'chain_start_failed'));
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(
          new UserError(
            `anvil (chain ${chainId}) exited while starting: ${lastLine(output) || `exit ${child.exitCode ?? child.signalCode}`}`,
            'chain_start_failed',
          ),
        );
      });
    });
  } catch (error) {
    await kill(child, exited, 1000);
    throw error;
  }
  // Read and dropped from now on: a full pipe would stall the node.
  child.stdout?.on('data', () => {});
  child.stderr?.on('data', keep);
  let stopping: Promise<void> | undefined;
  return {
    chainId,
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    pid: child.pid,
    get exit() {
      return exit;
    },
    stop: (graceMs = 2000) => (stopping ??= kill(child, exited, graceMs)),
  };
}

/**
 * On Linux, the node is started through util-linux's `setpriv --pdeathsig KILL`, which asks the
 * kernel to SIGKILL it when the thread that started it ends, and then execs anvil (same pid, no
 * process left between). So a SIGKILLed svc (`kill -9`, a CI timeout, a test's clean-up) leaves no
 * node running on a port and a CPU. Where setpriv is missing (macOS, Windows, a minimal image), anvil
 * is started as it is, and only a SIGKILL of svc can leave it running.
 */
function withParentDeath(binary: string, args: string[]): [string, string[]] {
  if (process.platform !== 'linux') return [binary, args];
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p));
  return setpriv ? [setpriv, ['--pdeathsig', 'KILL', '--', binary, ...args]] : [binary, args];
}

async function kill(child: ChildProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, graceMs);
  });
  await Promise.race([exited, late]);
  clearTimeout(timer);
  await exited;
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim())
      .at(-1)
      ?.trim() ?? ''
  );
}
