import { createHash } from 'node:crypto';
import { base58 } from '@scure/base';
import { isAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { CHAIN_ID_NAMESPACE, CHAINS, chainByNetworkId, chainsFor, knownNetworkIds } from '../../src/domain/chains.js';

/** Independent UUID v5 (RFC 9562 §5.5) on node:crypto, checked below against a published vector. */
function uuidV5(name: string, namespace: string): string {
  const h = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** Base58Check decode with an independent double SHA-256. */
function base58CheckDecode(s: string): Buffer {
  const raw = Buffer.from(base58.decode(s));
  const payload = raw.subarray(0, -4);
  const once = createHash('sha256').update(payload).digest();
  const twice = createHash('sha256').update(once).digest();
  expect(raw.subarray(-4).equals(twice.subarray(0, 4))).toBe(true);
  return payload;
}

const V5_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('chain registry', () => {
  it('lists 6 test chains then 8 live chains in CONTRACT §3 order', () => {
    expect(CHAINS.map((c) => `${c.environment}:${c.networkId}`)).toEqual([
      'test:11155111',
      'test:84532',
      'test:80002',
      'test:421614',
      'test:2494104990',
      'test:103',
      'live:1',
      'live:137',
      'live:8453',
      'live:42161',
      'live:10',
      'live:56',
      'live:728126428',
      'live:101',
    ]);
    expect(chainsFor('test')).toHaveLength(6);
    expect(chainsFor('live')).toHaveLength(8);
    expect(chainsFor('test').every((c) => c.environment === 'test')).toBe(true);
    expect(chainsFor('live').every((c) => c.environment === 'live')).toBe(true);
  });

  it('assigns families', () => {
    const fam = (env: 'test' | 'live', id: number) => chainByNetworkId(env, id)?.family;
    expect(fam('test', 2494104990)).toBe('tron');
    expect(fam('live', 728126428)).toBe('tron');
    expect(fam('test', 103)).toBe('solana');
    expect(fam('live', 101)).toBe('solana');
    expect(CHAINS.filter((c) => c.family === 'evm')).toHaveLength(4 + 6);
  });

  it('carries USDC on the test EVM chains and Solana, USDT on Tron, all with 6 decimals', () => {
    for (const c of chainsFor('test')) {
      expect(c.tokens).toHaveLength(1);
      expect(c.tokens[0]!.symbol).toBe(c.family === 'tron' ? 'USDT' : 'USDC');
      expect(c.tokens[0]!.decimals).toBe(6);
    }
  });

  it('carries USDC and USDT on live EVM chains, 18 decimals only on BNB Smart Chain', () => {
    for (const c of chainsFor('live')) {
      const symbols = c.tokens.map((t) => t.symbol);
      if (c.family === 'evm') expect(symbols).toEqual(['USDC', 'USDT']);
      if (c.family === 'tron') expect(symbols).toEqual(['USDT']);
      if (c.family === 'solana') expect(symbols).toEqual(['USDC']);
      for (const t of c.tokens) expect(t.decimals).toBe(c.networkId === 56 ? 18 : 6);
    }
  });

  it('uses the well-known mainnet contracts', () => {
    const addr = (id: number, sym: string) => chainByNetworkId('live', id)?.tokens.find((t) => t.symbol === sym)?.contractAddress;
    expect(addr(1, 'USDC')).toBe('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48');
    expect(addr(1, 'USDT')).toBe('0xdAC17F958D2ee523a2206206994597C13D831ec7');
    expect(addr(728126428, 'USDT')).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    expect(addr(101, 'USDC')).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    expect(addr(84532, 'USDC')).toBeUndefined(); // a test chain is not a live chain
  });

  it('has strictly EIP-55 checksummed EVM contract addresses, all distinct', () => {
    const evm = CHAINS.filter((c) => c.family === 'evm').flatMap((c) => c.tokens.map((t) => t.contractAddress));
    expect(evm).toHaveLength(4 + 12);
    for (const a of evm) expect(isAddress(a, { strict: true }), a).toBe(true);
    expect(new Set(evm.map((a) => a.toLowerCase())).size).toBe(evm.length);
  });

  it('has Tron contracts that decode as Base58Check with version byte 0x41', () => {
    const tron = CHAINS.filter((c) => c.family === 'tron').flatMap((c) => c.tokens);
    expect(tron).toHaveLength(2);
    for (const t of tron) {
      const payload = base58CheckDecode(t.contractAddress);
      expect(payload).toHaveLength(21);
      expect(payload[0]).toBe(0x41);
    }
    // TR7NHq… is the 20-byte contract a614f803…d13c that Tronscan shows in hex.
    expect(base58CheckDecode('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t').toString('hex')).toBe('41a614f803b6fd780986a42c78ec9c7f77e6ded13c');
  });

  it('has Solana mints that decode to 32 bytes', () => {
    const mints = CHAINS.filter((c) => c.family === 'solana').flatMap((c) => c.tokens);
    expect(mints).toHaveLength(2);
    for (const t of mints) expect(base58.decode(t.contractAddress)).toHaveLength(32);
  });

  it('is frozen, so no consumer can change the registry for everyone', () => {
    const c = CHAINS[0]!;
    expect(Object.isFrozen(CHAINS)).toBe(true);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.tokens)).toBe(true);
    expect(Object.isFrozen(c.tokens[0])).toBe(true);
  });
});

describe('chainId', () => {
  it('the reference UUID v5 reproduces the RFC/Python vector', () => {
    // Python docs: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
    expect(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('is the UUID v5 of "<environment>:<networkId>" under the fixed namespace', () => {
    for (const c of CHAINS) {
      expect(c.chainId).toMatch(V5_RE);
      expect(c.chainId).toBe(uuidV5(`${c.environment}:${c.networkId}`, CHAIN_ID_NAMESPACE));
    }
  });

  it('is unique', () => {
    expect(new Set(CHAINS.map((c) => c.chainId)).size).toBe(CHAINS.length);
  });

  it('is stable across releases (changing these breaks stored ids)', () => {
    expect(CHAIN_ID_NAMESPACE).toBe('2ffe6c1e-6315-450e-b59f-072aaade40ba');
    expect(chainByNetworkId('test', 11155111)?.chainId).toBe('800e6d0a-56dd-5278-ba3c-41d1541469b7');
    expect(chainByNetworkId('live', 1)?.chainId).toBe('860073e9-5c90-5ead-b4fe-23ea53e2415d');
  });
});

describe('lookups', () => {
  it('finds a chain only in its own environment', () => {
    expect(chainByNetworkId('test', 84532)?.chainName).toBe('Base Sepolia');
    expect(chainByNetworkId('live', 84532)).toBeUndefined();
    expect(chainByNetworkId('test', 8453)).toBeUndefined();
    expect(chainByNetworkId('live', 56)?.chainName).toBe('BNB Smart Chain');
    expect(chainByNetworkId('live', 999)).toBeUndefined();
  });

  it('lists known network ids in order, as a fresh array', () => {
    expect(knownNetworkIds('test')).toEqual([11155111, 84532, 80002, 421614, 2494104990, 103]);
    expect(knownNetworkIds('live')).toEqual([1, 137, 8453, 42161, 10, 56, 728126428, 101]);
    const ids = knownNetworkIds('test');
    ids.pop();
    expect(knownNetworkIds('test')).toHaveLength(6);
  });
});
