/**
 * The CLI's control token for a remote control plane (CONTRACT §12, issue 28): from a profile's
 * `controlToken` or SVC_CONTROL_TOKEN (the environment first), sent on control requests only,
 * never to another host than the profile's, and never shown (`--verbose` says that it is sent and
 * where it came from). A real emulator reached through this machine's non-loopback address (where
 * the token is required), and a recording server for what exactly goes out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, spawnCli, type LiveCli, type RunResult } from '../helpers/cli.js';
import { ikey, type TestEmulator } from '../helpers/emulator.js';
import { remoteControlPlane } from '../helpers/remote-control-plane.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'profile-token-0123456789';
const plane = remoteControlPlane(TOKEN, '{"data":[],"hasMore":false}');
const seen = plane.seen;
let emu: TestEmulator;
let remote: string;
let recorderUrl: string;
let project: string;

beforeAll(() => {
  ({ emu, remote, recorderUrl } = plane);
  project = tempDir('svc-token-profile-');
  fs.writeFileSync(path.join(project, 'package.json'), '{"name":"token-profile","private":true}\n');
  const keys = { partnerKey: emu.keys.test.partnerKey };
  const profiles = {
    remote: { baseUrl: remote, ...keys, controlToken: TOKEN },
    tokenless: { baseUrl: remote, ...keys },
    recorded: { baseUrl: recorderUrl, ...keys, controlToken: TOKEN },
  };
  fs.writeFileSync(path.join(project, 'svc.config.json'), JSON.stringify({ profiles }, null, 2));
});

const svc = (args: string[], env: Record<string, string> = {}) => runInProcess(args, { cwd: project, env });
function refused(r: RunResult) {
  expect(r.code, r.stdout + r.stderr).toBe(1);
  expect(r.stdout + r.stderr).toContain('control_plane_forbidden');
}

describe('the control token from a profile', () => {
  it('is sent from the profile, and SVC_CONTROL_TOKEN comes first', async () => {
    const shown = await svc(['time', 'show', '--json', '--profile', 'remote']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).now).toBeDefined();
    refused(await svc(['time', 'show', '--json', '--profile', 'tokenless']));
    // The environment over the profile: a wrong token there is the one sent.
    refused(await svc(['time', 'show', '--json', '--profile', 'remote'], { SVC_CONTROL_TOKEN: 'wrong-token-0123456789' }));
    const fromEnv = await svc(['time', 'show', '--json', '--profile', 'tokenless'], { SVC_CONTROL_TOKEN: TOKEN });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
  });

  it('goes with control requests only, and only to the profile’s own base URL', async () => {
    seen.length = 0;
    await svc(['time', 'show', '--json', '--profile', 'recorded']);
    await svc(['merchants', 'list', '--json', '--profile', 'recorded']);
    expect(seen.map((r) => r.path)).toEqual(['/__emulator/clock', expect.stringMatching(/^\/v1\/partner\/merchants/)]);
    expect(seen.map((r) => r.token)).toEqual([TOKEN, undefined]);

    // Another base URL than the profile's: its keys still apply (target.ts), its secret does not.
    seen.length = 0;
    refused(await svc(['time', 'show', '--json', '--profile', 'recorded', '--base-url', remote]));
    await svc(['time', 'show', '--json', '--profile', 'remote', '--base-url', recorderUrl]);
    expect(seen).toEqual([{ path: '/__emulator/clock', token: undefined }]);
  });

  it('is never shown: --verbose says it is sent, and from where', async () => {
    const verbose = await svc(['time', 'show', '--verbose', '--profile', 'remote']);
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stderr).toContain('and the control token (profile remote)');
    const listed = await svc(['merchants', 'list', '--verbose', '--profile', 'remote']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toMatch(/GET \/v1\/partner\/merchants\S* with pt_test_…\w{4} \(partner key, profile remote\)\n/);
    for (const r of [verbose, listed]) {
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
      expect(r.stdout + r.stderr).not.toContain(TOKEN.slice(-6));
    }
    expect(listed.stderr).not.toContain('control token');
  });

  it('goes to the browser in the fragment of `svc open`, never to the printed URL', async () => {
    const opener = path.join(project, 'browser.sh');
    const seenFile = path.join(project, 'opened.txt');
    // Written aside then renamed: the file appears whole (`>` creates it empty first, and the test
    // read it empty once on a busy machine).
    fs.writeFileSync(
      opener,
      `#!/bin/sh\necho "$1" > ${JSON.stringify(`${seenFile}.part`)} && mv ${JSON.stringify(`${seenFile}.part`)} ${JSON.stringify(seenFile)}\n`,
      {
        mode: 0o755,
      },
    );
    const opened = await svc(['open', '--json', '--profile', 'remote'], { SVC_BROWSER: opener });
    expect(opened.code, opened.stderr).toBe(0);
    expect(JSON.parse(opened.stdout)).toEqual({ url: `${remote}/__emulator/ui/`, opened: true });
    expect(opened.stdout + opened.stderr).not.toContain(TOKEN);
    // The opener runs detached: wait for its file, with a generous ceiling.
    for (let i = 0; i < 500 && !fs.existsSync(seenFile); i++) await new Promise((r) => setTimeout(r, 20));
    expect(fs.readFileSync(seenFile, 'utf8').trim()).toBe(`${remote}/__emulator/ui/#token=${TOKEN}`);
    const printed = await svc(['open', '--profile', 'remote'], { SVC_BROWSER: '' });
    expect(printed.stdout.trim()).toBe(`${remote}/__emulator/ui/`);
  });

  it('goes with the streams: svc webhook listen and svc logs tail through the remote control plane', async () => {
    const live: LiveCli[] = [];
    const newInvoice = async () => {
      const created = await emu.client.test.createInvoice({ body: { amount: '2.00' }, idempotencyKey: ikey() });
      if (!created.ok) throw new Error(JSON.stringify(created));
      return created.data.id;
    };
    try {
      const listen = spawnCli(['webhook', 'listen', '--forward-to', `${recorderUrl}/hooks`, '--profile', 'remote'], { cwd: project });
      live.push(listen);
      await listen.waitForLine((l) => l.startsWith('Ready! Forwarding to'));
      const id = await newInvoice();
      await listen.waitForLine((l) => l.includes('invoice.created') && l.includes(id.slice(0, 8)));

      const tail = spawnCli(['logs', 'tail', '--json', '--profile', 'remote'], { cwd: project });
      live.push(tail);
      // Nothing says when the stream is open under --json: a create each turn until one shows (ceiling 30 s).
      let shown: string | undefined;
      for (let turn = 0; turn < 30 && !shown; turn++) {
        const made = await newInvoice();
        shown = await tail.waitForLine((l) => l.includes(made), 1000).catch(() => undefined);
      }
      expect(shown, tail.stderr()).toBeDefined();
    } finally {
      for (const p of live) await p.stop();
    }
    for (const p of live) expect(p.stderr()).not.toContain(TOKEN);
  });

  it('is checked in the config file: too short is an error naming the field', async () => {
    const dir = tempDir('svc-token-short-');
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"short","private":true}\n');
    fs.writeFileSync(path.join(dir, 'svc.config.json'), JSON.stringify({ profiles: { p: { baseUrl: remote, controlToken: 'short' } } }));
    const r = await runInProcess(['time', 'show', '--profile', 'p'], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('profiles.p.controlToken');
  });
});
