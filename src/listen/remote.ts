/**
 * Remote mode: `svc webhook listen` against a deployment (or, for tests and `--tunnel cloudflared`,
 * an emulator playing one). Test keys only. The order of the steps is what keeps the account as
 * listen found it:
 *
 *  1. refuse live keys; repair what a killed listen left behind (its restore file);
 *  2. locate cloudflared and read the current webhook: nothing has changed yet, so a missing binary
 *     or an unreachable service ends here with the account untouched;
 *  3. start the relay and the tunnel (still nothing changed);
 *  4. write the restore file, then point the test webhook at the tunnel (PUT url + enabled, no
 *     secret: the configured secret is kept and signs what the app receives; with no webhook at all,
 *     create one with a generated secret, which is printed);
 *  5. on Ctrl-C, SIGTERM, or the tunnel dying: put back url, enabled and customHeaders (or disable
 *     the webhook listen created), delete the restore file, stop cloudflared, close the relay.
 */
import { generateSecret, keyHint, parseKey } from '../domain/keys.js';
import { UserError } from '../errors.js';
import { locateCloudflared } from '../tunnel/binary.js';
import { startQuickTunnel, type QuickTunnel } from '../tunnel/quick-tunnel.js';
import { createForwarder } from './forward.js';
import type { RunContext } from './local.js';
import type { ListenOptions } from './options.js';
import { startRelay } from './relay.js';
import { isAlive } from '../pid.js';
import {
  keyHash,
  otherLeftovers,
  readRestoreRecord,
  readWebhook,
  removeRestoreRecord,
  restoreFile,
  restoreWebhook,
  writeRestoreRecord,
  type RestoreRecord,
} from './restore.js';
import { errorMessage } from '../domain/caught.js';

export interface RemoteListenOptions extends ListenOptions {
  /** `cloudflared`: a quick tunnel to the relay. `none`: the relay's own URL is registered. */
  tunnel: 'cloudflared' | 'none';
  /** The project's `.svc/` folder, for the restore file. */
  stateDir: string;
  /** For CLOUDFLARED_BIN and cloudflared's own environment. */
  env: NodeJS.ProcessEnv;
  /** The webhook's secret (--secret), to check each delivery's signature; listen knows it when it made the webhook. */
  secret?: string | undefined;
}

/** Refuses live keys: listen never repoints a live webhook (nor could a tunnel URL pass its rules). */
export function refuseLiveKey(partnerKey: string): void {
  if (parseKey(partnerKey)?.environment !== 'live') return;
  throw new UserError(
    `svc webhook listen works with test keys only; ${keyHint(partnerKey)} is a live key, and listen will not repoint a live webhook`,
    'live_key_refused',
    'Use a test partner key (pt_test_…): --api-key, SVC_PARTNER_KEY or a profile. Nothing was changed.',
  );
}

/** Runs until `signal` aborts (returns after restoring) or something fails (restores, then throws). */
export async function runRemote(o: RemoteListenOptions, { signal, emit }: RunContext): Promise<void> {
  const partnerKey = o.client.key('partner')!;
  refuseLiveKey(partnerKey);

  // 1. A listen killed before it could restore left its file: put things back first.
  const file = restoreFile(o.stateDir, o.baseUrl, partnerKey);
  const leftover = readRestoreRecord(file);
  if (leftover) {
    if (leftover.pid !== process.pid && isAlive(leftover.pid)) {
      throw new UserError(
        `another svc webhook listen (pid ${leftover.pid}) is already forwarding this webhook`,
        'listen_already_running',
        `Stop it first (it restores the webhook when it exits). If that process is not listen, delete ${file}.`,
      );
    }
    await restoreWebhook(o.client, leftover, 'leftover', emit);
    removeRestoreRecord(file);
  }
  for (const other of otherLeftovers(o.stateDir, file)) {
    emit({
      type: 'warning',
      message: `a svc webhook listen against ${other.baseUrl} was stopped before it could restore that webhook (still pointing at ${other.listenUrl}); run listen against it with the same key to put it back`,
    });
  }

  // 2. Everything that can fail without consequences, before anything changes.
  const bin = o.tunnel === 'cloudflared' ? await locateCloudflared(o.env) : null;
  const previous = await readWebhook(o.client);
  if (signal.aborted) return;

  // 3. The relay and the tunnel.
  const forwarder = createForwarder();
  // Real deliveries held to the contract (CONTRACT §13), loaded only here: it builds the OpenAPI checker.
  const inspector = (await import('../fidelity/contract/delivery-inspector.js')).createDeliveryInspector(o.secret ?? null);
  const relay = await startRelay({
    forwardTo: o.forwardTo,
    events: o.events,
    headers: o.headers,
    timeoutMs: o.timeoutSeconds * 1000,
    forwarder,
    emit,
    inspect: inspector.inspect,
  });
  let tunnel: QuickTunnel | null = null;
  let failTunnel!: (message: string) => void;
  const tunnelFailed = new Promise<string>((resolve) => (failTunnel = resolve));
  try {
    if (bin) {
      tunnel = await startQuickTunnel({
        localUrl: relay.url,
        bin: bin.path,
        env: o.env,
        onEvent: (event) => {
          if (event.type === 'error') failTunnel(event.message);
          else if (event.type === 'starting') emit({ type: 'tunnel', state: 'starting', bin: event.bin });
          else if (event.type === 'url') emit({ type: 'tunnel', state: 'url', url: event.url });
          // Once stopping, a late "connected" would only confuse the last lines.
          else if (event.type === 'connected' && !signal.aborted)
            emit({ type: 'tunnel', state: 'connected', ...(event.location ? { location: event.location } : {}) });
          else if (event.type === 'exited') emit({ type: 'tunnel', state: 'exited', code: event.code, signal: event.signal });
        },
      });
    }
    if (signal.aborted) return;
    await pointAndWait(
      o,
      { signal, emit },
      { file, previous, listenUrl: tunnel?.url ?? relay.url, relayUrl: relay.url, tunnelUrl: tunnel?.url, tunnelFailed, useSecret: inspector.useSecret },
    );
  } finally {
    await tunnel?.stop();
    await relay.close();
    await forwarder.close();
  }
}

interface Pointing {
  file: string;
  previous: Awaited<ReturnType<typeof readWebhook>>;
  listenUrl: string;
  relayUrl: string;
  tunnelUrl: string | undefined;
  tunnelFailed: Promise<string>;
  /** The secret listen generated, for the delivery checks. */
  useSecret: (secret: string) => void;
}

/** Steps 4 and 5: change the webhook (restore file first), wait, put it back. */
async function pointAndWait(o: RemoteListenOptions, { signal, emit }: RunContext, p: Pointing): Promise<void> {
  const partnerKey = o.client.key('partner')!;
  const record: RestoreRecord = {
    version: 1,
    baseUrl: o.baseUrl,
    keyHash: keyHash(partnerKey),
    pid: process.pid,
    createdAt: new Date().toISOString(),
    listenUrl: p.listenUrl,
    previous: p.previous,
  };
  writeRestoreRecord(p.file, record);

  let pointed = false;
  let failure: unknown = null;
  try {
    const generated = p.previous ? null : generateSecret();
    if (generated) p.useSecret(generated);
    await o.client.putWebhook({ body: generated ? { url: p.listenUrl, secret: generated, enabled: true } : { url: p.listenUrl, enabled: true } });
    pointed = true;
    emit({
      type: 'ready',
      mode: 'remote',
      forwardTo: o.forwardTo,
      secret: generated,
      secretSource: generated ? 'generated' : 'configured',
      events: o.events,
      ...(p.tunnelUrl ? { tunnelUrl: p.tunnelUrl } : {}),
      relayUrl: p.relayUrl,
    });
    const aborted = new Promise<null>((resolve) => {
      if (signal.aborted) resolve(null);
      signal.addEventListener('abort', () => resolve(null), { once: true });
    });
    const tunnelGone = await Promise.race([aborted, p.tunnelFailed]);
    if (tunnelGone !== null) {
      failure = new UserError(tunnelGone, 'tunnel_exited', 'The webhook was put back. Start `svc webhook listen` again for a new tunnel.');
    }
  } catch (error) {
    failure = error;
  }

  // Put back. A failure here keeps the restore file: the next run retries.
  try {
    await restoreWebhook(o.client, record, 'exit', emit, { quiet: !pointed });
    removeRestoreRecord(p.file);
  } catch (error) {
    const message = `could not restore the webhook (${errorMessage(error)}); the next \`svc webhook listen\` here will, or set it back with \`svc webhook set\``;
    if (failure) emit({ type: 'warning', message });
    else failure = new UserError(message, 'restore_failed');
  }
  if (failure) throw failure;
}
