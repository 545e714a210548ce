import { randomBytes } from 'node:crypto';
import { classifyIp, parseIp } from '../../domain/ip.js';
import { locateCloudflared } from '../../tunnel/binary.js';
import { startQuickTunnel, type QuickTunnel } from '../../tunnel/quick-tunnel.js';
import { at, isRecord, str } from '../json.js';
import type { VerifyContext } from './context.js';
import { summary } from './expect.js';
import { startReceiver, type WebhookReceiver } from './receiver.js';
import { CheckFailed, CheckSkipped } from './types.js';

/** The receiver as the test webhook points at it, with the secret verify set. */
export interface HookSetup {
  receiver: WebhookReceiver;
  /** The URL the deployment delivers to (the receiver's, or the tunnel's). */
  url: string;
  secret: string;
  /** Sent with every delivery; null when the deployment did not take `customHeaders` in the PUT. */
  customHeaders: Record<string, string> | null;
}

interface Saved {
  url: string;
  enabled: boolean;
  customHeaders: Record<string, string>;
}

/**
 * The test webhook while verify runs: what it was (read before the first change, put back at the
 * end as `svc webhook listen` does), and the receiver it points at meanwhile. The API never returns
 * a secret, so the secret verify set cannot be put back: close() says so.
 */
export class WebhookHook {
  private saved: Promise<Saved | null> | undefined;
  private started: Promise<{ receiver: WebhookReceiver; url: string; tunnel: QuickTunnel | null }> | undefined;
  private ready: Promise<HookSetup> | undefined;
  private touched = false;
  readonly secret = `whsec_svcverify_${randomBytes(12).toString('hex')}`;

  constructor(private readonly ctx: VerifyContext) {}

  /** Reads the webhook as it is, once, before verify changes it. */
  save(): Promise<Saved | null> {
    this.saved ??= this.ctx.call('getWebhook', { key: this.ctx.partnerKey }).then((a) => {
      if (a.status === 404) return null;
      if (a.status !== 200 || !isRecord(a.json)) throw new CheckFailed('200 or 404 webhook_not_configured from GET of the webhook', summary(a));
      const headers = at(a.json, 'customHeaders');
      return {
        url: str(a.json, 'url') ?? '',
        enabled: at(a.json, 'enabled') === true,
        customHeaders: isRecord(headers) ? Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])) : {},
      };
    });
    this.saved.catch(() => (this.saved = undefined));
    this.touched = true;
    return this.saved;
  }

  /** A check changed the webhook (disabled it, another URL): the next setup() points it back. */
  changed(): void {
    this.ready = undefined;
  }

  /** The receiver, started once, and the webhook pointed at it (again, after a change). */
  setup(): Promise<HookSetup> {
    this.ready ??= this.point();
    this.ready.catch(() => (this.ready = undefined));
    return this.ready;
  }

  private async point(): Promise<HookSetup> {
    const { receiver, url } = await this.start();
    await this.save();
    const customHeaders = { 'X-Svc-Verify': this.ctx.run };
    const put = (body: Record<string, unknown>) => this.ctx.call('putWebhook', { key: this.ctx.partnerKey, body });
    let a = await put({ url, secret: this.secret, enabled: true, customHeaders });
    let headers: Record<string, string> | null = customHeaders;
    // customHeaders is svc's extension (CONTRACT §5): a deployment may refuse it; deliveries are checked without.
    if (a.status === 400 && str(a.json, 'error', 'param')?.startsWith('customHeaders')) {
      a = await put({ url, secret: this.secret, enabled: true });
      headers = null;
    }
    if (a.status === 400 && str(a.json, 'error', 'code') === 'webhook_url_not_allowed') {
      throw new CheckSkipped(`the deployment refuses the receiver's URL ${url} (${str(a.json, 'error', 'message') ?? ''}); run verify with --tunnel`);
    }
    if (a.status !== 200) throw new CheckFailed('200 from the PUT pointing the webhook at the receiver', summary(a));
    return { receiver, url, secret: this.secret, customHeaders: headers };
  }

  private start() {
    this.started ??= (async () => {
      const local = isLoopbackUrl(this.ctx.baseUrl);
      if (!local && !this.ctx.options.tunnel) {
        throw new CheckSkipped(
          `no webhook receiver can be reached: ${this.ctx.baseUrl} is not on this machine (pass --tunnel to reach one through cloudflared)`,
        );
      }
      const receiver = await startReceiver();
      if (local && !this.ctx.options.tunnel) return { receiver, url: receiver.url, tunnel: null };
      try {
        const bin = await locateCloudflared(this.ctx.options.env);
        const origin = new URL(receiver.url).origin;
        const tunnel = await startQuickTunnel({ localUrl: origin, bin: bin.path, env: this.ctx.options.env });
        return { receiver, url: `${tunnel.url.replace(/\/+$/, '')}${new URL(receiver.url).pathname}`, tunnel };
      } catch (error) {
        await receiver.close();
        throw new CheckSkipped(`no webhook receiver can be reached: the tunnel did not open (${error instanceof Error ? error.message : String(error)})`);
      }
    })();
    this.started.catch(() => (this.started = undefined));
    return this.started;
  }

  /** Puts the webhook back (url, enabled, customHeaders; the secret cannot be), stops the receiver and the tunnel. Returns notes for the user. */
  async close(): Promise<string[]> {
    const notes: string[] = [];
    const started = this.started ? await this.started.catch(() => null) : null;
    if (this.touched) {
      const saved = await this.saved?.catch(() => undefined);
      const url = saved ? saved.url : started?.url;
      if (saved !== undefined && url) {
        const body = saved ? { url, enabled: saved.enabled, customHeaders: saved.customHeaders } : { url, enabled: false };
        const a = await this.ctx.call('putWebhook', { key: this.ctx.partnerKey, body }).catch(() => null);
        if (a?.status !== 200) notes.push(`the test webhook could not be put back (${a ? summary(a) : 'no answer'}); set it with \`svc webhook set\``);
        else if (saved)
          notes.push(
            "the test webhook's URL, enabled flag and headers were put back; its secret is now the one svc verify set: set yours again with `svc webhook set --secret`",
          );
        else notes.push('the test webhook did not exist before; svc verify left the one it made disabled');
      }
    }
    await started?.tunnel?.stop();
    await started?.receiver.close();
    return notes;
  }
}

/** Whether a base URL names this machine (a loopback name or address): a local receiver reaches it. */
export function isLoopbackUrl(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const ip = parseIp(host);
  return ip !== null && classifyIp(ip) === 'loopback';
}
