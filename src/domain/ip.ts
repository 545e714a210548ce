/**
 * IP literals in every notation a resolver, browser or curl accepts, and their classification.
 * Used by the webhook URL rules (an IP literal is never a live host) and by the delivery-time
 * check of the address actually connected to (DNS rebinding). Pure: no I/O.
 */

/** A parsed address: 4 bytes for IPv4, 16 for IPv6, network byte order. */
export interface IpAddress {
  version: 4 | 6;
  bytes: Uint8Array;
}

/**
 * Where an address lives. Only `'public'` is a routable Internet unicast address; every other
 * value names why an address is not one. IPv6 forms that embed an IPv4 address (mapped,
 * compatible, NAT64, 6to4, Teredo) take the class of the embedded address.
 */
export type IpRange =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'unique-local';

// One inet_aton part: hex (`0x` alone is 0, as in WHATWG and glibc), octal (leading 0), decimal.
const HEX_PART = /^0x([0-9a-f]*)$/i;
const OCT_PART = /^0[0-7]*$/;
const DEC_PART = /^[1-9][0-9]*$/;

function parseAtonPart(part: string): number | null {
  const hex = HEX_PART.exec(part);
  if (hex) return hex[1] === '' ? 0 : parseInt(hex[1] ?? '', 16);
  if (OCT_PART.test(part)) return parseInt(part, 8);
  if (DEC_PART.test(part)) return parseInt(part, 10);
  return null;
}

/**
 * IPv4 in the inet_aton grammar: 1 to 4 parts, the last part fills the remaining bytes
 * (`127.1` = 127.0.0.1, `2130706433` = 127.0.0.1). A single trailing dot is accepted, as WHATWG does.
 */
function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length < 1 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    const value = parseAtonPart(part);
    if (value === null) return null;
    values.push(value);
  }
  const last = values.pop() ?? 0;
  // Every leading part is one byte; the last one may take all bytes that are left.
  if (values.some((v) => v > 255)) return null;
  if (last >= 2 ** (8 * (4 - values.length))) return null;
  const bytes = new Uint8Array(4);
  bytes.set(values);
  for (let i = 3, rest = last; i >= values.length; i--, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
  return bytes;
}

/** The IPv4 tail of an IPv6 literal: strict dotted quad only, as inet_pton and WHATWG require. */
function parseDottedQuad(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return Uint8Array.from(parts, Number);
}

function parseGroups(text: string): number[] | null {
  if (text === '') return [];
  const groups = text.split(':');
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

/** IPv6 (RFC 4291 text forms), brackets and zone id already removed. */
function parseIpv6(text: string): Uint8Array | null {
  let body = text;
  let tail: Uint8Array | null = null;
  if (body.includes('.')) {
    // An embedded IPv4 tail stands for the last two groups: parse it, put `0:0` in its place.
    const colon = body.lastIndexOf(':');
    tail = parseDottedQuad(body.slice(colon + 1));
    if (colon < 0 || tail === null) return null;
    body = `${body.slice(0, colon + 1)}0:0`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0] ?? '');
  const rest = halves.length === 2 ? parseGroups(halves[1] ?? '') : [];
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length;
  // Without `::` there must be exactly 8 groups; `::` must stand for at least one group.
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return null;
  const groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...rest];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  if (tail) bytes.set(tail, 12);
  return bytes;
}

/**
 * Parses an IP literal in any notation (see the module comment); `null` when `text` is not one.
 * IPv6 may be bracketed (`[::1]`) and carry a zone id (`fe80::1%eth0`), which is dropped.
 */
export function parseIp(text: string): IpAddress | null {
  let s = text;
  const bracketed = s.startsWith('[') && s.endsWith(']');
  if (bracketed) s = s.slice(1, -1);
  if (s.includes(':')) {
    const zone = s.indexOf('%');
    if (zone === 0 || zone === s.length - 1) return null;
    if (zone > 0) s = s.slice(0, zone);
    const bytes = parseIpv6(s);
    return bytes ? { version: 6, bytes } : null;
  }
  if (bracketed) return null; // brackets are only ever around IPv6
  const bytes = parseIpv4(s);
  return bytes ? { version: 4, bytes } : null;
}

/** True when the first `bits` bits of `bytes` equal those of `prefix`. */
function inPrefix(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i * 8 < bits; i++) {
    const mask = bits - i * 8 >= 8 ? 0xff : (0xff << (8 - (bits - i * 8))) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

// Checked in order, so the specific entries (metadata hosts, broadcast) precede their enclosing blocks.
const V4_RANGES: ReadonlyArray<readonly [readonly number[], number, IpRange]> = [
  [[169, 254, 169, 254], 32, 'metadata'], // AWS, GCP, Azure, DigitalOcean, ...
  [[169, 254, 170, 2], 32, 'metadata'], // AWS ECS task credentials
  [[100, 100, 100, 200], 32, 'metadata'], // Alibaba Cloud
  [[192, 0, 0, 192], 32, 'metadata'], // Oracle Cloud
  [[168, 63, 129, 16], 32, 'metadata'], // Azure host endpoint (WireServer: VM agent, DNS, health probes)
  [[255, 255, 255, 255], 32, 'broadcast'],
  [[0], 8, 'unspecified'], // "this network"
  [[10], 8, 'private'],
  [[100, 64], 10, 'cgnat'],
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local'],
  [[172, 16], 12, 'private'],
  [[192, 0, 0], 24, 'reserved'], // IETF protocol assignments
  [[192, 0, 2], 24, 'documentation'],
  [[192, 88, 99], 24, 'reserved'], // deprecated 6to4 relay anycast
  [[192, 168], 16, 'private'],
  [[198, 18], 15, 'benchmarking'],
  [[198, 51, 100], 24, 'documentation'],
  [[203, 0, 113], 24, 'documentation'],
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'],
];

const V6_RANGES: ReadonlyArray<readonly [readonly number[], number, IpRange]> = [
  [[0xfd, 0x00, 0x0e, 0xc2, ...new Array<number>(10).fill(0), 0x02, 0x54], 128, 'metadata'], // fd00:ec2::254, AWS
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, 'reserved'], // 100::/64 discard-only
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, 'private'], // 64:ff9b:1::/48 local-use NAT64
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'],
  [[0x3f, 0xff, 0x00], 20, 'documentation'], // 3fff::/20, RFC 9637
  [[0x20, 0x01, 0x00, 0x02, 0x00, 0x00], 48, 'benchmarking'],
  [[0x20, 0x01, 0x00], 23, 'reserved'], // IETF protocol assignments (Teredo is taken out first)
  [[0x5f, 0x00], 16, 'reserved'], // SRv6 SIDs, RFC 9602
  [[0xfc], 7, 'unique-local'],
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'private'], // deprecated site-local
  [[0xff], 8, 'multicast'],
];

/**
 * The IPv4 address an IPv6 address carries, for the forms that reach an IPv4 host:
 * mapped `::ffff:0:0/96`, translated `::ffff:0:0:0/96`, compatible `::/96`, NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16` and Teredo `2001::/32` (client address, bit-inverted).
 */
export function embeddedIpv4(ip: IpAddress): IpAddress | null {
  const b = ip.bytes;
  if (ip.version !== 6) return null;
  const v4 = (bytes: Uint8Array): IpAddress => ({ version: 4, bytes: Uint8Array.from(bytes) });
  const zeros = (from: number, to: number): boolean => b.subarray(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(b.subarray(12));
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return v4(b.subarray(12));
  if (zeros(0, 12)) return v4(b.subarray(12)); // `::` and `::1` are classified before this is used
  if (inPrefix(b, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96)) return v4(b.subarray(12));
  if (b[0] === 0x20 && b[1] === 0x02) return v4(b.subarray(2, 6));
  if (inPrefix(b, [0x20, 0x01, 0x00, 0x00], 32)) return v4(b.subarray(12).map((x) => ~x & 0xff));
  return null;
}

function lookup(bytes: Uint8Array, table: typeof V4_RANGES): IpRange | null {
  for (const [prefix, bits, range] of table) if (inPrefix(bytes, prefix, bits)) return range;
  return null;
}

/** Classifies a parsed address; see {@link IpRange}. */
export function classifyIp(ip: IpAddress): IpRange {
  if (ip.version === 4) return lookup(ip.bytes, V4_RANGES) ?? 'public';
  const b = ip.bytes;
  if (b.subarray(0, 15).every((x) => x === 0)) {
    if (b[15] === 0) return 'unspecified';
    if (b[15] === 1) return 'loopback';
  }
  const embedded = embeddedIpv4(ip);
  if (embedded) return classifyIp(embedded); // a mapped or tunnelled private IPv4 is still private
  // Only 2000::/3 is allocated for global unicast; anything else not listed is unassigned.
  return lookup(b, V6_RANGES) ?? ((b[0] ?? 0) >> 5 === 1 ? 'public' : 'reserved');
}

/** True only for a parsable IP literal whose class is `'public'`; false for anything unparsable. */
export function isPublicAddress(text: string): boolean {
  const ip = parseIp(text);
  return ip !== null && classifyIp(ip) === 'public';
}
