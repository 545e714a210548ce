import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { classifyIp, embeddedIpv4, isPublicAddress, parseIp, type IpRange } from '../../src/domain/ip.js';

/** Dotted/colon form of a parse result, to compare against readable expectations. */
function show(text: string): string | null {
  const ip = parseIp(text);
  if (!ip) return null;
  if (ip.version === 4) return [...ip.bytes].join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((ip.bytes[i] ?? 0) << 8) | (ip.bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

describe('parseIp notations', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'], // single decimal
    ['0x7f000001', '127.0.0.1'], // single hex
    ['0X7F000001', '127.0.0.1'],
    ['017700000001', '127.0.0.1'], // single octal
    ['0177.0.0.1', '127.0.0.1'], // octal part
    ['0x7f.0.0.1', '127.0.0.1'], // hex part
    ['0x7f.0x0.0x0.0x1', '127.0.0.1'],
    ['127.1', '127.0.0.1'], // shortened
    ['127.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'], // mixed
    ['0177.0x0.1', '127.0.0.1'],
    ['10.0x10.0400', '10.16.1.0'], // last part fills two bytes
    ['192.168.257', '192.168.1.1'],
    ['127.0.0.1.', '127.0.0.1'], // trailing dot, as WHATWG
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['4294967295', '255.255.255.255'],
    ['::', '0:0:0:0:0:0:0:0'],
    ['::1', '0:0:0:0:0:0:0:1'],
    ['[::1]', '0:0:0:0:0:0:0:1'],
    ['0:0:0:0:0:0:0:1', '0:0:0:0:0:0:0:1'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', '0:0:0:0:0:0:0:1'],
    ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:1'],
    ['[fe80::1%25eth0]', 'fe80:0:0:0:0:0:0:1'],
    ['::ffff:127.0.0.1', '0:0:0:0:0:ffff:7f00:1'],
    ['::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1'],
    ['::127.0.0.1', '0:0:0:0:0:0:7f00:1'],
    ['64:ff9b::10.0.0.1', '64:ff9b:0:0:0:0:a00:1'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
    ['2001:DB8::A', '2001:db8:0:0:0:0:0:a'],
  ])('%s → %s', (text, expected) => {
    expect(show(text)).toBe(expected);
  });

  it.each([
    '',
    ' 127.0.0.1',
    '256.0.0.1',
    '1.2.3.4.5',
    '1..2.3',
    '.1.2.3',
    '08.0.0.1',
    '0x1g',
    '4294967296',
    '127.0.0.1..',
    '1.256.1',
    '1.2.65536',
    'example.com',
    'localhost',
    '127.0.0.1%eth0',
    '[127.0.0.1]',
    ':',
    ':::',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1::2::3',
    '12345::',
    'g::1',
    '::ffff:0x7f.1',
    '::ffff:127.1',
    '::1.2.3.4:5',
    'fe80::1%',
    '[::1',
    '1:2:3:4:5:6:7:8::',
  ])('rejects %j', (text) => {
    expect(parseIp(text)).toBeNull();
  });
});

describe('classifyIp', () => {
  const cases: Array<[string, IpRange]> = [
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['93.184.216.34', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.100.100.200', 'metadata'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.0.0.1', 'reserved'],
    ['192.0.0.192', 'metadata'],
    ['168.63.129.16', 'metadata'], // Azure host endpoint
    ['168.63.129.15', 'public'],
    ['::ffff:168.63.129.16', 'metadata'],
    ['192.0.2.1', 'documentation'],
    ['192.88.99.1', 'reserved'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.20.0.0', 'public'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // other notations of non-public addresses
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['0xa9.0xfe.0xa9.0xfe', 'metadata'],
    ['2852039166', 'metadata'], // 169.254.169.254
    ['0251.0376.0251.0376', 'metadata'],
    ['167772161', 'private'], // 10.0.0.1
    ['0xc0a80001', 'private'], // 192.168.0.1
    ['0', 'unspecified'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['[fd00:ec2:0:0:0:0:0:254]', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['100::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'], // outside 2000::/3, unallocated
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:81c::200e', 'public'],
    // IPv6 embedding IPv4: the embedded address decides
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:0:10.0.0.1', 'private'], // IPv4-translated
    ['::127.0.0.1', 'loopback'], // IPv4-compatible
    ['::10.0.0.1', 'private'],
    ['::8.8.8.8', 'public'],
    ['64:ff9b::127.0.0.1', 'loopback'], // NAT64
    ['64:ff9b::192.168.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::8.8.8.8', 'private'], // local-use NAT64
    ['2002:7f00:1::', 'loopback'], // 6to4
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:808:808::1', 'public'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo, client 127.0.0.1 inverted
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'], // Teredo, client 8.8.8.8
  ];

  it('has at least 60 cases', () => expect(cases.length).toBeGreaterThanOrEqual(60));

  it.each(cases)('%s is %s', (text, range) => {
    const ip = parseIp(text);
    expect(ip).not.toBeNull();
    expect(classifyIp(ip!)).toBe(range);
    expect(isPublicAddress(text)).toBe(range === 'public');
  });

  it('returns false for anything unparsable', () => {
    for (const text of ['', 'localhost', 'example.com', '::g', '999.1.1.1']) expect(isPublicAddress(text)).toBe(false);
  });

  it('extracts the embedded IPv4 only where one exists', () => {
    expect(embeddedIpv4(parseIp('::ffff:1.2.3.4')!)?.bytes).toEqual(Uint8Array.from([1, 2, 3, 4]));
    expect(embeddedIpv4(parseIp('2606:4700::1')!)).toBeNull();
    expect(embeddedIpv4(parseIp('1.2.3.4')!)).toBeNull();
  });
});

describe('properties', () => {
  const octet = fc.integer({ min: 0, max: 255 });
  const inTen = fc.tuple(octet, octet, octet).map(([b, c, d]) => [10, b, c, d] as const);
  const asNumber = ([a, b, c, d]: readonly number[]): number => (((a ?? 0) * 256 + (b ?? 0)) * 256 + (c ?? 0)) * 256 + (d ?? 0);
  const notations = (bytes: readonly number[]): string[] => {
    const n = asNumber(bytes);
    return [
      bytes.join('.'),
      String(n),
      `0x${n.toString(16)}`,
      `0${n.toString(8)}`,
      bytes.map((x) => `0x${x.toString(16)}`).join('.'),
      bytes.map((x) => `0${x.toString(8)}`).join('.'),
      `${bytes[0]}.${(n & 0xffffff).toString()}`,
      `${bytes[0]}.${bytes[1]}.0x${(n & 0xffff).toString(16)}`,
      `::ffff:${bytes.join('.')}`,
      `::ffff:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`,
      `64:ff9b::${bytes.join('.')}`,
      `2002:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}::1`,
    ];
  };

  it('every address in 10.0.0.0/8, in every notation, parses to itself and is not public', () => {
    fc.assert(
      fc.property(inTen, (bytes) => {
        for (const text of notations(bytes)) {
          const ip = parseIp(text);
          expect(ip, text).not.toBeNull();
          expect(classifyIp(ip!), text).toBe('private');
          expect(isPublicAddress(text), text).toBe(false);
        }
      }),
    );
  });

  it('all notations of any IPv4 address agree on the class', () => {
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (bytes) => {
        const expected = classifyIp(parseIp(bytes.join('.'))!);
        for (const text of notations(bytes)) expect(classifyIp(parseIp(text)!), text).toBe(expected);
      }),
    );
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const ip = parseIp(text);
        if (ip) expect(ip.bytes.length).toBe(ip.version === 4 ? 4 : 16);
        expect(typeof isPublicAddress(text)).toBe('boolean');
      }),
    );
  });
});
