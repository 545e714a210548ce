/**
 * The tunnel module against a fake cloudflared (test/fixtures/fake-cloudflared.mjs, selected with
 * CLOUDFLARED_BIN like a user would): URL parsing, the event sequence, stopping (with the SIGKILL
 * escalation), failures before and after start, and how the binary is located. The log parser is also
 * checked against real cloudflared output quoted in public issues. Nothing here reaches Cloudflare.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UserError } from '../../src/errors.js';
import { locateCloudflared, packageBinaryPath, TunnelUnavailableError } from '../../src/tunnel/binary.js';
import type { TunnelEvent } from '../../src/tunnel/events.js';
import { createLogParser, startQuickTunnel, TunnelStartError, type QuickTunnel, type StartQuickTunnelOptions } from '../../src/tunnel/quick-tunnel.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The repository (tests run in a working folder of their own, not here). */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FAKE = fileURLToPath(new URL('../fixtures/fake-cloudflared.mjs', import.meta.url));
const LOCAL = 'http://127.0.0.1:4010';
const dir = tempDir('svc-tunnel-');
// A checkout that lost the mode bit would fail every test for an uninteresting reason.
beforeAll(() => fs.chmodSync(FAKE, 0o755));

const running: QuickTunnel[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check`; the ceiling is generous, because a loaded machine starts the fake slowly (issue 23). */
async function waitFor(check: () => boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts a tunnel on the fake, found the way users configure it: CLOUDFLARED_BIN. */
async function start(fakeEnv: Record<string, string>, options: Partial<StartQuickTunnelOptions> = {}) {
  const events: TunnelEvent[] = [];
  const { path: bin } = await locateCloudflared({ CLOUDFLARED_BIN: FAKE });
  const promise = startQuickTunnel({ localUrl: LOCAL, bin, env: { ...process.env, ...fakeEnv }, onEvent: (e) => events.push(e), ...options });
  promise.then(
    (t) => running.push(t),
    () => {},
  );
  return { events, promise, types: () => events.map((e) => e.type) };
}

describe('startQuickTunnel', () => {
  it('resolves with the trycloudflare URL, then reports the edge connection: starting → url → connected', async () => {
    const { events, promise, types } = await start({});
    const tunnel = await promise;
    expect(tunnel.url).toMatch(/^https:\/\/[a-z]+(-[a-z]+){3}\.trycloudflare\.com$/);
    expect(events[0]).toEqual({ type: 'starting', bin: FAKE, args: ['tunnel', '--no-autoupdate', '--url', LOCAL] });
    expect(events[1]).toEqual({ type: 'url', url: tunnel.url });
    await waitFor(() => types().includes('connected'));
    expect(events[2]).toEqual({ type: 'connected', connIndex: 0, location: 'txl01' });
    expect(types()).toEqual(['starting', 'url', 'connected']);
  });

  it("accepts the URL a tunnel provider hands back on the banner line (the relay's own local URL)", async () => {
    const echo = await (await start({ FAKE_CLOUDFLARED_URL: 'echo' })).promise;
    expect(echo.url).toBe(LOCAL);
    const custom = await (await start({ FAKE_CLOUDFLARED_URL: 'http://localhost:5999/relay' })).promise;
    expect(custom.url).toBe('http://localhost:5999/relay');
  });

  it('passes extra arguments after the defaults', async () => {
    const { events, promise } = await start({}, { args: ['--protocol', 'http2'] });
    await promise;
    expect(events[0]).toMatchObject({ args: ['tunnel', '--no-autoupdate', '--protocol', 'http2', '--url', LOCAL] });
  });

  it('stop() ends cloudflared with SIGTERM, reports exited and no error, and is idempotent', async () => {
    const { types, events, promise } = await start({});
    const tunnel = await promise;
    const pid = tunnel.pid!;
    expect(isAlive(pid)).toBe(true);
    await Promise.all([tunnel.stop(), tunnel.stop()]);
    expect(await tunnel.exited).toEqual({ code: 0, signal: null });
    expect(isAlive(pid)).toBe(false);
    expect(types()).not.toContain('error');
    expect(events.at(-1)).toEqual({ type: 'exited', code: 0, signal: null });
    await tunnel.stop();
  });

  it('escalates to SIGKILL when cloudflared ignores SIGTERM, and leaves no process behind', async () => {
    const tunnel = await (await start({ FAKE_CLOUDFLARED_MODE: 'ignore-sigterm' })).promise;
    const began = Date.now();
    await tunnel.stop();
    expect(Date.now() - began).toBeGreaterThanOrEqual(2900);
    expect(await tunnel.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(isAlive(tunnel.pid!)).toBe(false);
  });

  it("kills cloudflared from the parent's exit hook", async () => {
    const before = new Set(process.listeners('exit'));
    const tunnel = await (await start({ FAKE_CLOUDFLARED_MODE: 'ignore-sigterm' })).promise;
    const hooks = process.listeners('exit').filter((l) => !before.has(l));
    expect(hooks).toHaveLength(1);
    hooks[0]!.call(process, 0);
    expect(await tunnel.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Once the process is gone the hook is removed again: no listener leak per tunnel.
    expect(process.listeners('exit')).not.toContain(hooks[0]);
  });

  it('rejects with TunnelStartError and the log tail when cloudflared exits before printing a URL', async () => {
    const { promise, types } = await start({ FAKE_CLOUDFLARED_MODE: 'exit-before-url' });
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TunnelStartError);
    expect(err).toBeInstanceOf(UserError);
    const e = err as TunnelStartError;
    expect(e.code).toBe('tunnel_failed');
    expect(e.message).toBe('cloudflared exited with code 1 before printing a tunnel URL.');
    expect(e.logTail.at(-1)).toMatch(/^failed to request quick Tunnel: Post "https:\/\/api\.trycloudflare\.com\/tunnel"/);
    expect(e.hint).toContain('failed to request quick Tunnel');
    expect(e.hint).toContain('--tunnel none');
    expect(types()).toEqual(['starting', 'exited']);
  });

  it('gives up after readyTimeoutMs when no URL comes, and kills the process', async () => {
    // The ready timer is a fake one, fired once the child has printed its preamble: a real 500 ms
    // timer raced the child's start on a loaded machine (issue 23). Child processes keep real time.
    const pidFile = path.join(dir, 'hang.pid');
    const hangFile = path.join(dir, 'hang.ready');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { promise } = await start(
        { FAKE_CLOUDFLARED_MODE: 'hang', FAKE_CLOUDFLARED_PIDFILE: pidFile, FAKE_CLOUDFLARED_HANGFILE: hangFile },
        { readyTimeoutMs: 500 },
      );
      const outcome = promise.then(
        () => null,
        (e: unknown) => e,
      );
      for (let i = 0; !fs.existsSync(hangFile); i++) {
        if (i > 3000) throw new Error('the fake cloudflared did not start within 60 s');
        await sleep(20);
      }
      // The preamble is in the pipe: two turns of the event loop read it (a poll phase runs between).
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      vi.advanceTimersByTime(500);
      const err = (await outcome) as TunnelStartError;
      expect(err).toBeInstanceOf(TunnelStartError);
      expect(err.message).toBe('cloudflared printed no tunnel URL within 0.5 s.');
      expect(err.logTail.at(-1)).toContain('Requesting new quick Tunnel on trycloudflare.com...');
      expect(isAlive(Number(fs.readFileSync(pidFile, 'utf8')))).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reports an unexpected exit after start as exited + error', async () => {
    const { promise, events, types } = await start({ FAKE_CLOUDFLARED_MODE: 'exit-after-url' });
    const tunnel = await promise;
    expect(await tunnel.exited).toEqual({ code: 1, signal: null });
    expect(types()).toEqual(['starting', 'url', 'connected', 'exited', 'error']);
    const error = events.at(-1) as Extract<TunnelEvent, { type: 'error' }>;
    expect(error.message).toBe(`cloudflared exited with code 1; the tunnel ${tunnel.url} is gone.`);
    await tunnel.stop(); // already gone: resolves at once
  });

  it('rejects with TunnelStartError when the binary cannot be spawned', async () => {
    const err = await startQuickTunnel({ localUrl: LOCAL, bin: path.join(dir, 'no-such-cloudflared') }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TunnelStartError);
    expect((err as Error).message).toMatch(/^cloudflared could not be started \(.*no-such-cloudflared\): spawn .* ENOENT\.$/);
  });
});

describe('locateCloudflared', () => {
  const noPackage = { packageBin: path.join(dir, 'pkg', 'bin', 'cloudflared'), install: false as const };
  const link = (name: string) => {
    const d = fs.mkdtempSync(path.join(dir, 'path-'));
    fs.symlinkSync(FAKE, path.join(d, name));
    return d;
  };

  it('uses CLOUDFLARED_BIN when it names an executable file (also a bare name on PATH)', async () => {
    expect(await locateCloudflared({ CLOUDFLARED_BIN: FAKE })).toEqual({ path: FAKE, source: 'CLOUDFLARED_BIN' });
    const d = link('cloudflared-2025');
    expect(await locateCloudflared({ CLOUDFLARED_BIN: 'cloudflared-2025', PATH: d })).toEqual({
      path: path.join(d, 'cloudflared-2025'),
      source: 'CLOUDFLARED_BIN',
    });
  });

  it('refuses a CLOUDFLARED_BIN that is missing or not executable, naming the variable', async () => {
    const missing = path.join(dir, 'nope', 'cloudflared');
    await expect(locateCloudflared({ CLOUDFLARED_BIN: missing })).rejects.toMatchObject({
      code: 'cloudflared_bin_invalid',
      message: `CLOUDFLARED_BIN is set to ${missing}, but that file does not exist.`,
    });
    const plain = path.join(dir, 'not-executable');
    fs.writeFileSync(plain, '#!/bin/sh\n', { mode: 0o644 });
    await expect(locateCloudflared({ CLOUDFLARED_BIN: plain })).rejects.toMatchObject({
      code: 'cloudflared_bin_invalid',
      message: `CLOUDFLARED_BIN is set to ${plain}, but that file is not executable.`,
    });
    await expect(locateCloudflared({ CLOUDFLARED_BIN: dir })).rejects.toThrow(/CLOUDFLARED_BIN .* not a file/);
  });

  it("prefers the package's binary, then PATH, skipping the package's JS wrapper in node_modules/.bin", async () => {
    expect(await packageBinaryPath()).toBe(
      path.join(ROOT, 'node_modules', 'cloudflared', 'bin', process.platform === 'win32' ? 'cloudflared.exe' : 'cloudflared'),
    );
    const pkg = path.join(link('cloudflared'), 'cloudflared');
    expect(await locateCloudflared({ PATH: '' }, { packageBin: pkg })).toEqual({ path: pkg, source: 'cloudflared package' });
    const d = link('cloudflared');
    expect(await locateCloudflared({ PATH: d }, noPackage)).toEqual({ path: path.join(d, 'cloudflared'), source: 'PATH' });
    expect(fs.existsSync(path.join(ROOT, 'node_modules/.bin/cloudflared'))).toBe(true);
    await expect(locateCloudflared({ PATH: path.join(ROOT, 'node_modules/.bin') }, noPackage)).rejects.toBeInstanceOf(TunnelUnavailableError);
  });

  it("installs through the package's downloader when nothing is found", async () => {
    const to = path.join(dir, 'installed', 'cloudflared');
    const install = async (target: string) => {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(FAKE, target);
      fs.chmodSync(target, 0o755);
    };
    expect(await locateCloudflared({ PATH: '' }, { packageBin: to, install })).toEqual({ path: to, source: 'cloudflared package' });
  });

  it('throws TunnelUnavailableError, one sentence plus what to do, when there is no binary and the download fails', async () => {
    const install = async () => {
      throw new Error('getaddrinfo ENOTFOUND github.com');
    };
    const err = await locateCloudflared({ PATH: '' }, { ...noPackage, install }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TunnelUnavailableError);
    expect(err).toBeInstanceOf(UserError);
    const e = err as TunnelUnavailableError;
    expect(e.code).toBe('cloudflared_missing');
    expect(e.message).toBe('cloudflared is not installed and could not be downloaded, so no tunnel can be opened.');
    expect(e.hint).toMatch(/^Downloading it failed: getaddrinfo ENOTFOUND github\.com\.\n/);
    for (const part of ["Cloudflare's package repository", 'https://github.com/cloudflare/cloudflared/releases', 'CLOUDFLARED_BIN', '--tunnel none']) {
      expect(e.hint).toContain(part);
    }
  });

  it('gives up on a download that takes longer than installTimeoutMs', async () => {
    const err = (await locateCloudflared({ PATH: '' }, { ...noPackage, install: () => new Promise(() => {}), installTimeoutMs: 100 }).then(
      () => null,
      (e: unknown) => e,
    )) as TunnelUnavailableError;
    expect(err).toBeInstanceOf(TunnelUnavailableError);
    expect(err.hint).toMatch(/^Downloading it failed: no answer within 0\.1 s\./);
  });
});

describe('the log parser, on real cloudflared output', () => {
  const parseAll = (lines: string[]) => {
    const parse = createLogParser();
    return lines.map((l) => parse(l)).filter((f) => f !== undefined);
  };

  it('finds the quick tunnel URL in the banner box', () => {
    // cloudflare/cloudflared issue #1466 (cloudflared 2025.x on Windows, 2025-05-08).
    const banner2025 = [
      '2025-05-08T20:24:28Z INF Thank you for trying Cloudflare Tunnel. Doing so, without a Cloudflare account, is a quick way to experiment and try it out. However, be aware that these account-less Tunnels have no uptime guarantee, are subject to the Cloudflare Online Services Terms of Use (https://www.cloudflare.com/website-terms/), and Cloudflare reserves the right to investigate your use of Tunnels for violations of such terms. If you intend to use Tunnels in production you should use a pre-created named tunnel by following: https://developers.cloudflare.com/cloudflare-one/connections/connect-apps',
      '2025-05-08T20:24:28Z INF Requesting new quick Tunnel on trycloudflare.com...',
      '2025-05-08T20:24:34Z INF +--------------------------------------------------------------------------------------------+',
      '2025-05-08T20:24:34Z INF |  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |',
      '2025-05-08T20:24:34Z INF |  https://pda-cameron-emirates-cardiff.trycloudflare.com                                    |',
      '2025-05-08T20:24:34Z INF +--------------------------------------------------------------------------------------------+',
    ];
    expect(parseAll(banner2025)).toEqual([{ type: 'url', url: 'https://pda-cameron-emirates-cardiff.trycloudflare.com' }]);
    // cloudflare/cloudflared issue #946 (cloudflared 2023.4.0, macOS): the URL line on its own.
    expect(parseAll(['2023-04-18T14:06:49Z INF |  https://buffalo-marco-cardiff-motel.trycloudflare.com                                     |'])).toEqual([
      { type: 'url', url: 'https://buffalo-marco-cardiff-motel.trycloudflare.com' },
    ]);
  });

  it('reports registered connections, current and 2023 formats, but not unregistered ones', () => {
    expect(
      parseAll([
        // docs/polaroid/phase1/polaroid-phase1-tunnel-reissue-step82.md in qari093/lumora-web (cloudflared 2025.10.0).
        '2025-12-20T19:46:21Z INF Registered tunnel connection connIndex=0 connection=74b14de6-a266-4815-89ac-ff3d46d58f5c event=0 ip=198.41.192.47 location=txl01 protocol=quic',
        // homeassistant-apps/app-cloudflared issue #671 (2024-07-09).
        '2024-07-09T08:18:43Z INF Registered tunnel connection connIndex=3 connection=bc19101e-b832-4cea-9d49-a0e562c57af8 event=0 ip=198.41.200.13 location=bru01 protocol=quic',
        // cloudflare/cloudflared issue #919 (2023-03-25), the older wording.
        '2023-03-25T02:39:36Z INF Connection c190c520-25ce-42a4-9ad4-cce158903bb8 registered with protocol: quic connIndex=0 ip=198.41.192.107 location=CDG',
        // cloudflare/cloudflared issue #1038 (2023-08-04), on shutdown.
        '2023-08-04T09:42:19Z INF Unregistered tunnel connection connIndex=3 event=0 ip=198.41.200.43',
        '2023-08-04T09:42:19Z INF Initiating graceful shutdown due to signal terminated ...',
      ]),
    ).toEqual([
      { type: 'connected', connIndex: 0, location: 'txl01' },
      { type: 'connected', connIndex: 3, location: 'bru01' },
      { type: 'connected', connIndex: 0, location: 'CDG' },
    ]);
  });

  it('takes no URL from failures (api.trycloudflare.com is not a tunnel)', () => {
    expect(
      parseAll([
        // cloudflare/cloudflared issue #1593 (2026-02-03) and #547 (2022-01-12).
        'failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": dial tcp: lookup api.trycloudflare.com: no such host',
        'failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": dial tcp 176.53.43.44:443: connect: connection refused',
        // cloudflare/cloudflared issue #972 (2023-05-19).
        "failed to unmarshal quick Tunnel: invalid character 'e' looking for beginning of value",
      ]),
    ).toEqual([]);
  });

  it('takes any URL on the line after the banner title, and ignores colour codes', () => {
    const parse = createLogParser();
    expect(
      parse(
        '\x1b[90m2025-01-01T00:00:00Z\x1b[0m \x1b[32mINF\x1b[0m |  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |',
      ),
    ).toBeUndefined();
    expect(parse('2025-01-01T00:00:00Z INF |  http://127.0.0.1:4010                                                   |')).toEqual({
      type: 'url',
      url: 'http://127.0.0.1:4010',
    });
    // Elsewhere a plain URL is not the tunnel (the Settings line echoes --url).
    expect(parse('2025-01-01T00:00:00Z INF Settings: map[ha-connections:1 no-autoupdate:true protocol:quic url:http://127.0.0.1:4010]')).toBeUndefined();
  });
});
