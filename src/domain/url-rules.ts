/**
 * Webhook URL rules per environment (CONTRACT §5). Saving a configuration checks the URL text only,
 * without DNS; for `live`, the delivery checks the address it connects to with `isPublicAddress`.
 */
import type { Environment } from './environment.js';
import { parseIp } from './ip.js';

/**
 * Quick-tunnel services that forward a public name to a developer's machine. A live URL on one of
 * these (or any subdomain) is a laptop, not a production receiver; `test` accepts them.
 */
export const TUNNEL_DOMAINS: readonly string[] = [
  'trycloudflare.com', // cloudflared quick tunnels
  'ngrok.io',
  'ngrok.app',
  'ngrok.dev',
  'ngrok-free.app',
  'ngrok-free.dev',
  'ngrok.pizza',
  'loca.lt', // localtunnel
  'localtunnel.me',
  'localhost.run',
  'lhr.life', // localhost.run
  'serveo.net',
  'serveousercontent.com',
  'pagekite.me',
  'telebit.cloud',
  'telebit.io',
  'localxpose.io',
  'loclx.io', // localxpose
  'tunnelmole.net',
  'devtunnels.ms', // Visual Studio / VS Code dev tunnels
  'app.github.dev', // Codespaces forwarded ports
  'bore.pub',
  'pinggy.io',
  'pinggy.link',
  'pinggy.net',
  'pinggy.online',
  'localtonet.com',
  'localto.net',
  'zrok.io',
  'sharedwithexpose.com', // BeyondCode Expose
  'tunnelto.dev',
  'loophole.site',
  'pktriot.net', // Packetriot
  'smee.io', // webhook relay to localhost
  'ts.net', // Tailscale Funnel (and MagicDNS names)
  'playit.gg',
  'jprq.io',
];

/**
 * Name suffixes that never resolve on the public Internet, so a live receiver cannot be behind one.
 * Special-use names (RFC 6761 and successors) first, then private-network conventions that ICANN
 * will not delegate or that resolvers commonly answer locally.
 */
const NON_PUBLIC_SUFFIXES: readonly string[] = [
  'local', // mDNS, RFC 6762 (also Kubernetes `cluster.local`)
  'localdomain', // /etc/hosts convention
  'internal', // reserved by ICANN for private use (2024); `host.docker.internal`
  'home.arpa', // RFC 8375 home networks
  'arpa', // infrastructure zone (reverse DNS), never a web host
  'test', // RFC 6761
  'invalid', // RFC 6761
  'example', // RFC 6761 (example.com itself is a real, public host and stays allowed)
  'onion', // RFC 7686, Tor only
  'alt', // RFC 9476, non-DNS namespaces
  'i2p', // I2P overlay network
  'lan', // router default domains
  'home', // ICANN name-collision list, never delegated
  'corp', // ICANN name-collision list, never delegated
  'mail', // ICANN name-collision list, never delegated
  'intranet',
  'private',
  'svc', // Kubernetes `<service>.<namespace>.svc`
];

/** Longest URL accepted, in UTF-16 code units of the submitted string. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Outcome of {@link checkWebhookUrl}: the parsed URL, or a one-sentence reason for integrators. */
export type UrlCheck = { ok: true; url: URL } | { ok: false; message: string };

const fail = (message: string): UrlCheck => ({ ok: false, message });

/** True when `host` equals `domain` or is a subdomain of it (label boundary, not a plain suffix). */
function isWithin(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * The syntax of a host name (not an IP literal), in both environments: a name with an empty label,
 * a label that starts or ends with a hyphen, or characters beyond letters, digits and hyphens never
 * resolves, and would only fail at every delivery. Underscores appear in local names (containers,
 * /etc/hosts), so `test` keeps them; no public TLS certificate can hold one, so `live` does not.
 */
function checkHostSyntax(hostname: string, env: Environment): string | null {
  if (parseIp(hostname.replace(/^\[(.*)\]$/, '$1')) !== null) return null;
  // One trailing dot is the fully qualified form of the same name; more is an empty label.
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  const shown = `The host "${hostname}"`;
  if (name.length > 253) return `${shown} is longer than 253 characters.`;
  const allowed = env === 'test' ? /^[a-z0-9_-]+$/ : /^[a-z0-9-]+$/;
  for (const label of name.split('.')) {
    if (label === '') return `${shown} has an empty label (a leading dot, or two dots in a row).`;
    if (label.length > 63) return `${shown} has a label longer than 63 characters.`;
    if (label.startsWith('-') || label.endsWith('-')) return `${shown} has a label that starts or ends with a hyphen.`;
    if (!allowed.test(label)) {
      return `${shown} may only hold letters, digits${env === 'test' ? ', underscores' : ''} and hyphens between its dots.`;
    }
  }
  return null;
}

/** The live-only host rules; `host` is lower-case, unbracketed, without trailing dots. */
function checkLiveHost(host: string): string | null {
  if (parseIp(host) !== null) {
    return `Live webhook URLs must use a public domain name, not the IP address ${host}.`;
  }
  if (isWithin(host, 'localhost')) return `Live webhook URLs must not point to localhost (${host}).`;
  if (!host.includes('.')) {
    return `The host "${host}" is not a fully qualified domain name; live webhook URLs need a public domain.`;
  }
  const suffix = NON_PUBLIC_SUFFIXES.find((s) => isWithin(host, s));
  if (suffix !== undefined) {
    return `The host "${host}" uses the non-public ".${suffix}" domain; live webhook URLs need a public domain.`;
  }
  const tunnel = TUNNEL_DOMAINS.find((d) => isWithin(host, d));
  if (tunnel !== undefined) {
    return `The host "${host}" is a ${tunnel} tunnel; live webhook URLs must point to your production server, not a tunnel.`;
  }
  return null;
}

/**
 * Checks a webhook URL against the rules of `env`. Both environments: a string of at most
 * {@link MAX_WEBHOOK_URL_LENGTH} characters that is an absolute http(s) URL. `live` additionally:
 * https only, no credentials, and a host that looks public (no IP literal, localhost, non-public
 * suffix or tunnel domain). Checks run in that order, so the message names the first problem.
 */
export function checkWebhookUrl(raw: unknown, env: Environment): UrlCheck {
  if (typeof raw !== 'string') return fail('The webhook URL must be a string.');
  if (raw.length === 0) return fail('The webhook URL must not be empty.');
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return fail(`The webhook URL is ${raw.length} characters long; the limit is ${MAX_WEBHOOK_URL_LENGTH}.`);
  }
  // The URL parser silently strips surrounding spaces and drops tabs/newlines anywhere; reject them
  // instead, so the stored URL is exactly what the integrator typed.
  if (/[\u0000-\u0020\u007f]/.test(raw)) {
    return fail('The webhook URL must not contain spaces or control characters.');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('The webhook URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail(`The webhook URL must use http or https, not ${url.protocol.slice(0, -1)}.`);
  }
  if (url.hostname === '') return fail('The webhook URL has no host.');
  if (url.port === '0') return fail('The webhook URL names port 0, which nothing can listen on.');
  const syntax = checkHostSyntax(url.hostname, env);
  if (syntax !== null) return fail(syntax);
  if (env === 'test') return { ok: true, url };

  if (url.protocol !== 'https:') return fail('Live webhook URLs must use https.');
  if (url.username !== '' || url.password !== '') {
    return fail('Live webhook URLs must not contain credentials (user:password@).');
  }
  // WHATWG keeps a trailing dot (`example.com.` is the same name as `example.com`); strip every one so
  // that `localhost.` or `x.trycloudflare.com.` cannot slip past the suffix checks.
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '');
  if (host === '') return fail('The webhook URL has no host.');
  const problem = checkLiveHost(host);
  return problem === null ? { ok: true, url } : fail(problem);
}
