/**
 * Where an emulator's webhooks may go (CONTRACT §5, §8 "An exposed emulator is no open proxy").
 * On loopback (a laptop) test URLs may point anywhere, and live ones only at public addresses. An
 * emulator that listens on any other address is reachable by others, and a delivery's attempts
 * (`attempts[].responseBody`) read its receiver's answer back: it would be a proxy into the network
 * it runs in (the metadata service, the database's admin port, the pod network). So there, URLs of
 * both environments whose host is or resolves to a non-public address are refused when saved and
 * again at every connection, unless `--webhook-allow` lists the host or its range.
 */
import type { Environment } from '../domain/environment.js';
import { classifyIp, parseIp } from '../domain/ip.js';
import type { LookupFn } from '../domain/lookup.js';
import { parseWebhookAllow, type WebhookAllow } from '../domain/webhook-allow.js';
import type { AttemptGuard } from './attempt.js';
import { screenHost } from './ssrf.js';

export interface WebhookTargets {
  /** Whether the emulator listens beyond loopback. */
  readonly exposed: boolean;
  /** `--webhook-allow`, parsed. */
  readonly allow: WebhookAllow;
  /** The guard a delivery's attempts run under: live always public-only; an exposed emulator's test ones, public or listed. */
  guardFor(environment: Environment): AttemptGuard;
  /** A saved URL's refusal (a sentence for `webhook_url_not_allowed`), or null; always null on loopback. */
  refusal(url: URL): Promise<string | null>;
}

/** The policy of an emulator bound to `host`, with `--webhook-allow`'s entries (checked: a bad one throws a TypeError). */
export function webhookTargets(host: string, allowEntries: readonly string[], lookup?: LookupFn): WebhookTargets {
  const exposed = !isLoopbackBind(host);
  const allow = parseWebhookAllow(allowEntries);
  return {
    exposed,
    allow,
    guardFor: (environment) => (environment === 'live' ? 'public-only' : exposed ? 'listed-or-public' : 'none'),
    async refusal(url) {
      if (!exposed) return null;
      const blocked = await screenHost(url.hostname.replace(/\.+$/, ''), allow, lookup);
      if (blocked === null) return null;
      const what = blocked.hostname === blocked.address ? `is ${blocked.address} (${blocked.range})` : `resolves to ${blocked.address} (${blocked.range})`;
      return (
        `The webhook URL's host ${blocked.hostname} ${what}: this emulator listens beyond loopback (${host}), so webhooks may not reach ` +
        `internal addresses. Allow it with --webhook-allow ${blocked.hostname === blocked.address ? blocked.address : blocked.hostname} (config webhookAllow, SVC_WEBHOOK_ALLOW).`
      );
    },
  };
}

/** Whether a listen address is this machine only: a loopback address or a `localhost` name. */
export function isLoopbackBind(host: string): boolean {
  // The default, at every start: known without the parsing below (its regular expressions are
  // compiled on first use, ~0.1 ms of a start).
  if (host === '127.0.0.1') return true;
  const name = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const ip = parseIp(name);
  return ip !== null && classifyIp(ip) === 'loopback';
}
