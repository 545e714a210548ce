/**
 * docs/container.md's *Running* lines, run through the Docker CLI as the docs write them (issue 38):
 * the plain `docker run` (or, where the host's limits refuse it with `error setting rlimit`, again
 * with the limits the docs give for that, as a reader would), the line with those limits, and the
 * line for another host port with SVC_PUBLIC_URL, whose invoices' `checkoutUrl` must name that port.
 * Against podman, the Docker CLI talks to podman's own Docker API service, started here on a socket
 * in the test's folder. Names, host ports and volumes are made unique; every flag is the docs'.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engine, healthy, IMAGE, IS_PODMAN, uniqueName, until } from '../helpers/container.js';
import { docBlocks } from '../helpers/doc-blocks.js';
import { ikey, request } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

const DOCKER = ['/usr/local/bin/docker', '/usr/bin/docker'].find((f) => fs.existsSync(f));
const dir = tempDir('svc-docs-running-');
let service: ChildProcess | undefined;
let dockerHost: string | undefined;
/** What these tests made through the Docker CLI, which the helpers' cleanup() does not know. */
const made: { containers: string[]; volumes: string[] } = { containers: [], volumes: [] };

beforeAll(async () => {
  // With Docker's own daemon, the CLI's default host; with podman, its Docker API service.
  if (!IMAGE || !DOCKER || !IS_PODMAN) return;
  const socket = path.join(dir, 'podman.sock');
  service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore' });
  dockerHost = `unix://${socket}`;
  await until('podman system service', async () => docker(['version']).status === 0);
});
afterAll(async () => {
  for (const name of made.containers) await engine(['rm', '-f', '-v', name]);
  for (const name of made.volumes) await engine(['volume', 'rm', '-f', name]);
  service?.kill();
});

function docker(args: string[]) {
  return spawnSync(DOCKER!, args, { env: { ...process.env, ...(dockerHost ? { DOCKER_HOST: dockerHost } : {}) }, encoding: 'utf8', timeout: 120_000 });
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A docs line with the container's name, host ports and volume made unique; its flags unchanged. */
async function own(line: string): Promise<{ name: string; hostPort: number; args: string[] }> {
  const name = uniqueName('docs');
  const volume = uniqueName('vol');
  made.containers.push(name);
  made.volumes.push(volume);
  const documented = /127\.0\.0\.1:(\d+):4747/.exec(line)![1]!;
  const hostPort = await freePort();
  const text = line
    .replace(/--name svc\b/, `--name ${name}`)
    .replace(/\bsvc-data:/, `${volume}:`)
    .replaceAll(`127.0.0.1:${documented}`, `127.0.0.1:${hostPort}`);
  return { name, hostPort, args: text.split(/\s+/).slice(1) };
}

/** `docker run …` as written; where the host's limits refuse it, with the docs' limits. Its name and URL. */
async function runAsDocumented(line: string, limitsLine: string): Promise<{ name: string; url: string }> {
  let run = await own(line);
  let ran = docker(run.args);
  if (ran.status !== 0) {
    expect(ran.stderr).toMatch(/error setting rlimit type [67]/);
    const limits = limitsLine.match(/--ulimit \S+/g)!.flatMap((l) => l.split(' '));
    run = await own(line);
    ran = docker([run.args[0]!, run.args[1]!, ...limits, ...run.args.slice(2)]);
  }
  expect(ran.status, ran.stderr).toBe(0);
  const url = `http://127.0.0.1:${run.hostPort}`;
  await healthy(url);
  return { name: run.name, url };
}

describe.skipIf(!IMAGE || !DOCKER)(`docs/container.md's Running lines through the Docker CLI (${DOCKER ?? 'none'})`, () => {
  const lines = () =>
    docBlocks('docs/container.md', 'container-running')
      .flatMap((b) => b.split('\n').map((l) => l.trim()))
      .filter((l) => l.startsWith('docker run '));

  it("the first line runs, or fails only on the host's limits and runs with the docs' limits; the line with limits runs as written", async () => {
    const [plain, limited] = lines();
    expect(limited).toMatch(/--ulimit nofile=\S+ --ulimit nproc=\S+ /);
    await runAsDocumented(limited!, limited!);
    const { url } = await runAsDocumented(plain!, limited!);
    expect((await request(url, 'GET', '/__emulator/health')).body).toMatchObject({ status: 'ok' });
  });

  it("another host port: with the docs' SVC_PUBLIC_URL, checkoutUrl names that port, and no warning is logged", async () => {
    const [, limited, other] = lines();
    expect(other).toMatch(/-p 127\.0\.0\.1:4748:4747 -e SVC_PUBLIC_URL=http:\/\/127\.0\.0\.1:4748 /);
    const { name, url } = await runAsDocumented(other!, limited!);
    const keys = (await request(url, 'GET', '/__emulator/keys')).body as { test: { merchantKey: string } };
    const created = await request(url, 'POST', '/v1/invoices', { key: keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '5.00' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.checkoutUrl.startsWith(`${url}/checkout/`)).toBe(true);
    expect((await engine(['logs', name])).stdout).not.toContain('SVC_PUBLIC_URL=');
  });
});
