/**
 * The connect-time address guard for `live` webhook deliveries (CONTRACT §5), and for every
 * delivery of an emulator that listens beyond loopback (§8 "no open proxy"), where the addresses
 * `--webhook-allow` lists pass. Saving a configuration checks the URL; a public-looking name can
 * still resolve (or be re-pointed, "DNS rebinding") to 127.0.0.1, a cloud metadata endpoint or a
 * private network. So the check runs inside the socket's own `lookup`: the addresses we vet are
 * exactly the ones `net.connect` then dials, with no second resolution in between that an attacker
 * could answer differently.
 */
import { promises as dns } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { classifyIp, parseIp } from '../domain/ip.js';
import type { LookupFn } from '../domain/lookup.js';
import type { WebhookAllow } from '../domain/webhook-allow.js';

// Declared on its own (domain/lookup.ts): `startEmulator({ lookup })` takes one, and its declaration must not pull in node:dns.
export type { LookupFn } from '../domain/lookup.js';

/** The shape of `net.connect`'s `lookup` option (both the `all: true` and the single-address form). */
export type NetLookup = (
  hostname: string,
  options: LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/** Thrown (through the socket) when a host resolves to, or is, an address that is not public. */
export class AddressBlockedError extends Error {
  readonly code = 'ESVC_ADDRESS_BLOCKED' as const;
  readonly hostname: string;
  readonly address: string;
  /** The class from `classifyIp` (`loopback`, `private`, `metadata`, ...), or `invalid`. */
  readonly range: string;

  /** `exposed`: refused because the emulator listens beyond loopback (CONTRACT §8), which the message says with its remedy. */
  constructor(hostname: string, address: string, range: string, exposed = false) {
    const what = hostname === address ? `${address} (${range}) is not a public address` : `${hostname} resolves to ${address} (${range}), not a public address`;
    super(exposed ? `${what}; this emulator listens beyond loopback, so it delivers to internal addresses only when --webhook-allow lists them` : what);
    this.name = 'AddressBlockedError';
    this.hostname = hostname;
    this.address = address;
    this.range = range;
  }
}

/** The system resolver (honours /etc/hosts, like Node's default `lookup`). */
export const systemResolve: LookupFn = async (hostname) => (await dns.lookup(hostname, { all: true })).map((entry) => entry.address);

/**
 * 4 or 6 for a canonical IP literal, 0 otherwise. `net.isIP`, not `parseIp`: `net.connect` accepts
 * only what `isIP` accepts, and `parseIp`'s inet_aton forms (`127.1`) go to the resolver instead.
 */
function familyOf(address: string): 0 | 4 | 6 {
  const family = isIP(address);
  return family === 4 || family === 6 ? family : 0;
}

/** The first non-public address of `addresses` that `allow` does not list, with its class, or null. */
function firstNonPublic(addresses: readonly string[], allow?: WebhookAllow): { address: string; range: string } | null {
  for (const address of addresses) {
    if (allow?.address(address)) continue;
    const ip = parseIp(address);
    const range = ip === null ? 'invalid' : classifyIp(ip);
    if (range !== 'public') return { address, range };
  }
  return null;
}

function notFound(hostname: string, family: number): NodeJS.ErrnoException {
  const suffix = family === 4 || family === 6 ? ` (no IPv${family} address)` : '';
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}${suffix}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });
}

/**
 * Adapts a {@link LookupFn} to `net.connect`'s `lookup` option, optionally vetting the answer.
 * `check` returns an error to refuse the connection with, or null.
 */
function adapt(resolve: LookupFn, check: ((hostname: string, addresses: string[]) => Error | null) | null): NetLookup {
  return (hostname, options, callback) => {
    // `options.family` may be 0, 4, 6 or (from some callers) 'IPv4'/'IPv6'.
    const raw: number | string | undefined = options.family;
    const family = raw === 4 || raw === 'IPv4' ? 4 : raw === 6 || raw === 'IPv6' ? 6 : 0;
    // An IP literal needs no resolution, and must not be sent to a resolver that might remap it.
    const literal = familyOf(hostname) !== 0;
    (literal ? Promise.resolve([hostname]) : resolve(hostname)).then(
      (addresses) => {
        // Vet every answer, not only the one we would dial: a name with one private record among
        // public ones is a rebinding setup (the next connection may get the private one).
        const refused = check?.(hostname, addresses) ?? null;
        if (refused) return callback(refused, options.all ? [] : '', 0);
        const usable: LookupAddress[] = [];
        for (const address of addresses) {
          const f = familyOf(address);
          if (f !== 0 && (family === 0 || f === family)) usable.push({ address, family: f });
        }
        const first = usable[0];
        if (first === undefined) return callback(notFound(hostname, family), options.all ? [] : '', 0);
        if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (err: unknown) => {
        const error = err instanceof Error ? err : notFound(hostname, family);
        callback(error, options.all ? [] : '', 0);
      },
    );
  };
}

/**
 * A `net.connect` `lookup` that resolves with `resolve` (default: the system resolver) and refuses,
 * with an {@link AddressBlockedError}, any host whose answer contains a non-public address, and any
 * non-public IP literal. Honours `options.all` and `options.family`.
 */
export function guardedLookup(resolve: LookupFn = systemResolve, allow?: WebhookAllow): NetLookup {
  return adapt(resolve, (hostname, addresses) => screen(hostname, addresses, allow));
}

/**
 * The guard's verdict on a host and the addresses it resolved to: null when they may be dialled.
 * With `allow` (an exposed emulator's `--webhook-allow`), a listed host name passes whatever it
 * resolves to, and listed addresses pass.
 */
function screen(hostname: string, addresses: readonly string[], allow?: WebhookAllow): AddressBlockedError | null {
  if (allow?.host(hostname)) return null;
  const bad = firstNonPublic(addresses, allow);
  return bad === null ? null : new AddressBlockedError(hostname, bad.address, bad.range, allow !== undefined);
}

/**
 * Save-time check of an exposed emulator's webhook URL host (CONTRACT §8): an IP literal, or the
 * addresses a name resolves to now. A name that does not resolve passes (nothing to judge yet):
 * every connection checks again.
 */
export async function screenHost(hostname: string, allow: WebhookAllow, resolve: LookupFn = systemResolve): Promise<AddressBlockedError | null> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (allow.host(host)) return null;
  if (parseIp(host) !== null) return screen(host, [host], allow);
  // Loopback by definition (RFC 6761), whatever a resolver says or fails to say.
  if (host === 'localhost' || host.endsWith('.localhost')) return new AddressBlockedError(host, '127.0.0.1', 'loopback', true);
  let timer: NodeJS.Timeout | undefined;
  // A resolver that does not answer must not hold the PUT: nothing to judge then, as for a failure.
  const late = new Promise<null>((done) => {
    timer = setTimeout(() => done(null), SAVE_LOOKUP_MS).unref();
  });
  const addresses = await Promise.race([resolve(host).catch(() => null), late]);
  clearTimeout(timer);
  return addresses === null ? null : screen(host, addresses, allow);
}

/** How long a save waits for the name's addresses (CONTRACT §8); each connection checks again anyway. */
const SAVE_LOOKUP_MS = 5000;

/**
 * The same adapter without the guard: lets an injected {@link LookupFn} steer the unguarded
 * (`test` environment) agent, so tests and local setups resolve names the same way in both modes.
 */
export function plainLookup(resolve: LookupFn = systemResolve): NetLookup {
  return adapt(resolve, null);
}

/**
 * The guard for a URL whose host is an IP literal: `net.connect` skips `lookup` for those, so the
 * attempt layer must check them itself. Returns the error to report, or null when fine (or a name).
 */
export function checkLiteralHost(hostname: string, allow?: WebhookAllow): AddressBlockedError | null {
  const address = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (familyOf(address) === 0) return null;
  return screen(address, [address], allow);
}
