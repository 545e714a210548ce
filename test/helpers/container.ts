/**
 * The container tests' engine: podman (with runc and cgroupfs) or docker, as scripts/container-engine.sh
 * chooses, with the limits this project's machines need (scripts/image.mjs). Everything a test
 * starts is named `svc-test-…` and removed by `cleanup()`.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The image the container project built (svc-emulator:<version>), or '' when there is no engine. */
    containerImage: string;
    /** The engine command (`podman --runtime runc --cgroup-manager=cgroupfs`, `docker`), or ''. */
    containerEngine: string;
  }
}

export const IMAGE = inject('containerImage');
const ENGINE = inject('containerEngine').split(' ').filter(Boolean);
export const IS_PODMAN = path.basename(ENGINE[0] ?? '') === 'podman';
/** Podman asks for more open files and processes than some hosts allow (as scripts/image.mjs). */
export const RUN_LIMITS = IS_PODMAN ? ['--ulimit', 'nofile=1024:20000', '--ulimit', 'nproc=4096:4096'] : [];
/** The name a container uses for the host: each engine has its own (docs/container.md). */
export const HOST_ALIAS = IS_PODMAN ? 'host.containers.internal' : 'host.docker.internal';
const HOST_GATEWAY = IS_PODMAN ? [] : ['--add-host', 'host.docker.internal:host-gateway'];

export interface EngineResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the engine with these arguments; resolves with the exit code and output, never rejects on a non-zero exit. */
export function engine(args: string[], timeoutMs = 60_000): Promise<EngineResult> {
  return new Promise((resolve, reject) => {
    execFile(ENGINE[0]!, [...ENGINE.slice(1), ...args], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : null) : 0;
      if (code === null) reject(error);
      else resolve({ code, stdout, stderr });
    });
  });
}

const created: { kind: 'container' | 'volume' | 'network'; name: string }[] = [];

export function uniqueName(what: string): string {
  return `svc-test-${what}-${randomBytes(4).toString('hex')}`;
}

/** `run -d` of the image with a published port on 127.0.0.1 (a free one) and these extra arguments. */
export async function startContainer(extra: string[], name = uniqueName('ctr')): Promise<{ name: string; url: string }> {
  created.push({ kind: 'container', name });
  const res = await engine(['run', '-d', '--name', name, ...RUN_LIMITS, ...HOST_GATEWAY, '-p', '127.0.0.1::4747', ...extra, IMAGE]);
  if (res.code !== 0) throw new Error(`run failed (${res.code}): ${res.stderr}`);
  const port = await engine(['port', name, '4747/tcp']);
  const hostPort = /:(\d+)\s*$/m.exec(port.stdout)?.[1];
  if (!hostPort) throw new Error(`no published port for ${name}: ${port.stdout} ${port.stderr}`);
  return { name, url: `http://127.0.0.1:${hostPort}` };
}

/** A one-off container (`run --rm`), its exit code and output. */
export function runOnce(extra: string[], command: string[] = [], timeoutMs = 60_000): Promise<EngineResult> {
  const name = uniqueName('once');
  created.push({ kind: 'container', name });
  return engine(['run', '--name', name, ...RUN_LIMITS, ...HOST_GATEWAY, ...extra, IMAGE, ...command], timeoutMs);
}

export function newVolume(): string {
  const name = uniqueName('vol');
  created.push({ kind: 'volume', name });
  return name;
}

/** Waits for a condition, polling, up to a generous ceiling; throws naming what it waited for. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, ceilingMs = 30_000): Promise<T> {
  const deadline = Date.now() + ceilingMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what} after ${ceilingMs} ms${last ? `: ${(last as Error).message}` : ''}`);
}

export async function healthy(url: string): Promise<void> {
  await until(`${url}/__emulator/health`, async () => (await fetch(`${url}/__emulator/health`)).status === 200);
}

export async function exitCodeOf(name: string): Promise<number | undefined> {
  const res = await engine(['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', name]);
  const [status, code] = res.stdout.trim().split(' ');
  return status === 'exited' || status === 'stopped' ? Number(code) : undefined;
}

/** A network of its own, on which containers find each other by name (compose's default). */
export async function newNetwork(): Promise<string> {
  const name = uniqueName('net');
  created.push({ kind: 'network', name });
  const res = await engine(['network', 'create', name]);
  if (res.code !== 0) throw new Error(`network create failed: ${res.stderr}`);
  return name;
}

/** Removes everything the tests created, containers first (a volume or network in use cannot go). */
export async function cleanup(): Promise<void> {
  for (const kind of ['container', 'volume', 'network'] as const) {
    // One at a time: a name that is gone already (`run --rm`) must not keep the others; `-v` takes
    // the container's anonymous /data volume with it.
    for (const { name } of created.filter((c) => c.kind === kind)) {
      await engine(kind === 'container' ? ['rm', '-f', '-v', name] : [kind, 'rm', '-f', name]);
    }
  }
  created.length = 0;
}
