/**
 * `--webhook-allow <host|cidr>[,…]` (config `webhookAllow`, `SVC_WEBHOOK_ALLOW`; CONTRACT §8 "An
 * exposed emulator is no open proxy"): the internal receivers an emulator listening beyond loopback
 * may still deliver to. An entry is a host name (exactly that name: `app`, `hooks.internal`), an IP
 * address, or a range in CIDR notation (`10.0.0.0/8`, `fd00::/8`). Pure: no I/O.
 */
import { embeddedIpv4, type IpAddress, parseIp } from './ip.js';

interface Range {
  ip: IpAddress;
  bits: number;
}

/** The parsed list: whether a URL's host name, or an address it resolves to, is listed. */
export interface WebhookAllow {
  /** The entries as given (for messages). */
  readonly entries: readonly string[];
  /** A host name or IP literal listed as such (case and trailing dots aside). */
  host(name: string): boolean;
  /** An address inside a listed address or range (an IPv4-mapped IPv6 address counts as its IPv4). */
  address(text: string): boolean;
}

/** Why `entry` is not a host name, IP address or CIDR range; null when it is one. */
export function webhookAllowProblem(entry: string): string | null {
  const parsed = parseEntry(entry);
  return typeof parsed === 'string' ? parsed : null;
}

/**
 * The list from its entries (each may itself be a comma-separated list, as flags and the environment
 * give them). Throws a TypeError naming the first bad entry.
 */
export function parseWebhookAllow(entries: readonly string[]): WebhookAllow {
  const names = new Set<string>();
  const ranges: Range[] = [];
  const given = entries
    .flatMap((e) => e.split(','))
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of given) {
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string') throw new TypeError(`webhookAllow: ${parsed}`);
    if ('name' in parsed) names.add(parsed.name);
    else ranges.push(parsed);
  }
  const inRange = (ip: IpAddress) => ranges.some((r) => contains(r, ip));
  return {
    entries: given,
    host: (name) => {
      const n = normalName(name);
      const ip = parseIp(n);
      return names.has(n) || (ip !== null && inRange(ip));
    },
    address: (text) => {
      const ip = parseIp(text);
      if (ip === null) return false;
      const v4 = embeddedIpv4(ip);
      return inRange(ip) || (v4 !== null && inRange(v4));
    },
  };
}

function normalName(name: string): string {
  return name
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '');
}

function parseEntry(raw: string): { name: string } | Range | string {
  const entry = raw.trim();
  const notOne = `"${raw}" is not a host name, an IP address or a CIDR range (no scheme, port or path: app, 10.0.0.5, 10.0.0.0/8)`;
  const slash = entry.indexOf('/');
  if (slash !== -1) {
    const ip = parseIp(entry.slice(0, slash));
    if (ip === null) return notOne;
    const bitsText = entry.slice(slash + 1);
    if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > (ip.version === 6 ? 128 : 32)) return `"${raw}" is not a CIDR range such as 10.0.0.0/8 or fd00::/8`;
    return { ip, bits: Number(bitsText) };
  }
  const ip = parseIp(entry);
  if (ip !== null) return { ip, bits: ip.version === 6 ? 128 : 32 };
  const name = normalName(entry);
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name) || name.length > 253) return notOne;
  return { name };
}

function contains(range: Range, ip: IpAddress): boolean {
  if (range.ip.version !== ip.version) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const take = Math.min(8, range.bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    const i = bit / 8;
    if (((range.ip.bytes[i] ?? 0) & mask) !== ((ip.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}
