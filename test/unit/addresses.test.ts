import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { base58 } from '@scure/base';
import { concat, getAddress, getContractAddress, isAddress, keccak256, slice, toBytes, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  DEPOSIT_FORWARDER,
  depositAddresses,
  EVM_DEPOSIT_FACTORY,
  evmDepositAddress,
  SOLANA_DEPOSIT_AUTHORITY,
  SPL_TOKEN_PROGRAM,
  solanaDepositAddress,
  toChecksumAddress,
  TRON_DEPOSIT_FACTORY,
  tronDepositAddress,
} from '../../src/domain/addresses.js';
import { chainsFor } from '../../src/domain/chains.js';

const N = 2000;
const IDS = Array.from({ length: N }, () => randomUUID());
const FIXED_ID = '3b241101-e2bb-4255-8caf-4136c566a962';

const uuidHex = (id: string): Hex => `0x${id.replace(/-/g, '').toLowerCase()}`;
const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

// ---- independent references ----

/** EIP-1167 creation code, as OpenZeppelin's Clones library lays it out. */
function minimalProxyInitCode(implementation: Hex): Hex {
  return concat(['0x3d602d80600a3d3981f3363d3d373d3d3d363d73', implementation, '0x5af43d82803e903d91602b57fd5bf3']);
}

function base58CheckEncode(payload: Uint8Array): string {
  const check = sha256(sha256(payload)).subarray(0, 4);
  return base58.encode(Buffer.concat([payload, check]));
}

function base58CheckDecode(s: string): Buffer {
  const raw = Buffer.from(base58.decode(s));
  const payload = raw.subarray(0, -4);
  expect(raw.subarray(-4).equals(sha256(sha256(payload)).subarray(0, 4)), `checksum of ${s}`).toBe(true);
  return payload;
}

/** bytes32(uint128(id)): the 16 id bytes right-aligned in 32, as viem's `pad` would do. */
const pad32 = (hex: Hex): Hex => `0x${hex.slice(2).padStart(64, '0')}`;

/** solana-program's Pubkey::create_with_seed: sha256(base ‖ seed ‖ owner). */
function createWithSeed(base: Uint8Array, seed: string, owner: Uint8Array): Uint8Array {
  return sha256(base, Buffer.from(seed, 'utf8'), owner);
}

describe('reference implementations', () => {
  it('reproduce the solana-web3.js createWithSeed vector', () => {
    const system = base58.decode('11111111111111111111111111111111');
    expect(base58.encode(createWithSeed(system, 'limber chicken: 4/45', system))).toBe('9h1HyLCW5dZnBVap8C5egQ9Z6pHyjsh5MNy83iPqqRuq');
  });
});

describe('constants', () => {
  it('are the documented nothing-up-my-sleeve values', () => {
    const last20 = (s: string) => slice(keccak256(toBytes(s)), 12);
    expect(EVM_DEPOSIT_FACTORY).toBe(getAddress(last20('svc-emulator/evm-deposit-factory')));
    expect(DEPOSIT_FORWARDER).toBe(getAddress(last20('svc-emulator/deposit-forwarder')));
    expect(TRON_DEPOSIT_FACTORY).toBe(base58CheckEncode(Buffer.from(`41${last20('svc-emulator/tron-deposit-factory').slice(2)}`, 'hex')));
    expect(SOLANA_DEPOSIT_AUTHORITY).toBe(base58.encode(sha256(Buffer.from('svc-emulator/solana-deposit-authority'))));
  });

  it('pin the addresses of one invoice (a change here re-addresses every invoice)', () => {
    expect(evmDepositAddress(FIXED_ID)).toBe('0xA27708b864fF36E9AEe01561c046004f51105885');
    expect(tronDepositAddress(FIXED_ID)).toBe('TLmiUdDHBH3YTAoSYnKtb2n1suynKP3jr5');
    expect(solanaDepositAddress(FIXED_ID)).toBe('CNmrYkwtj42q8EdJz9jNTJMWsGMhh5SrYJ9zGaqWEvsL');
  });
});

describe('toChecksumAddress', () => {
  it('matches viem getAddress on random addresses', () => {
    for (let i = 0; i < 500; i++) {
      const lower = randomBytes(20).toString('hex');
      expect(toChecksumAddress(lower)).toBe(getAddress(`0x${lower}`));
    }
  });

  it('matches the EIP-55 test vectors, whatever the input case or prefix', () => {
    for (const a of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(toChecksumAddress(a.slice(2).toLowerCase())).toBe(a);
      expect(toChecksumAddress(a.toUpperCase().replace('0X', '0x'))).toBe(a);
      expect(toChecksumAddress(a)).toBe(a);
    }
  });

  it.each(['', '0x', 'abc', `0x${'g'.repeat(40)}`, 'a'.repeat(39), 'a'.repeat(41)])('rejects %j', (s) => {
    expect(() => toChecksumAddress(s)).toThrow(TypeError);
  });
});

describe('evmDepositAddress', () => {
  const bytecodeHash = keccak256(minimalProxyInitCode(DEPOSIT_FORWARDER));

  it('is the CREATE2 address viem computes for the factory, salt and proxy code', () => {
    for (const id of IDS.slice(0, 200).concat(FIXED_ID)) {
      const expected = getContractAddress({
        opcode: 'CREATE2',
        from: EVM_DEPOSIT_FACTORY,
        salt: pad32(uuidHex(id)),
        bytecodeHash,
      });
      expect(evmDepositAddress(id)).toBe(expected);
    }
  });

  it('is strictly EIP-55, deterministic, case-insensitive in the id and unique', () => {
    const seen = new Set<string>();
    for (const id of IDS) {
      const a = evmDepositAddress(id);
      expect(isAddress(a, { strict: true })).toBe(true);
      expect(evmDepositAddress(id)).toBe(a);
      seen.add(a);
    }
    expect(seen.size).toBe(N);
    expect(evmDepositAddress(FIXED_ID.toUpperCase())).toBe(evmDepositAddress(FIXED_ID));
  });

  it.each(['', 'not-a-uuid', '3b241101e2bb42558caf4136c566a962', '3b241101-e2bb-4255-8caf-4136c566a96', 'inv_123'])('rejects the id %j', (id) => {
    expect(() => evmDepositAddress(id)).toThrow(TypeError);
    expect(() => tronDepositAddress(id)).toThrow(TypeError);
    expect(() => solanaDepositAddress(id)).toThrow(TypeError);
  });
});

describe('tronDepositAddress', () => {
  const factory = base58CheckDecode(TRON_DEPOSIT_FACTORY);
  const codeHash = keccak256(minimalProxyInitCode(DEPOSIT_FORWARDER));

  it('is TVM CREATE2 (0x41 ‖ factory ‖ salt ‖ code hash) in Base58Check', () => {
    expect(factory).toHaveLength(21);
    expect(factory[0]).toBe(0x41);
    for (const id of IDS.slice(0, 200).concat(FIXED_ID)) {
      const hash = keccak256(concat([`0x${factory.toString('hex')}`, pad32(uuidHex(id)), codeHash]));
      const expected = base58CheckEncode(Buffer.from(`41${hash.slice(2 + 24)}`, 'hex'));
      expect(tronDepositAddress(id)).toBe(expected);
    }
  });

  it('decodes as Base58Check, version 0x41 and 20 bytes, deterministic and unique', () => {
    const seen = new Set<string>();
    for (const id of IDS) {
      const a = tronDepositAddress(id);
      expect(a.startsWith('T')).toBe(true);
      const payload = base58CheckDecode(a);
      expect(payload).toHaveLength(21);
      expect(payload[0]).toBe(0x41);
      expect(tronDepositAddress(id)).toBe(a);
      seen.add(a);
    }
    expect(seen.size).toBe(N);
  });

  it('differs from the EVM address of the same invoice', () => {
    const tron20 = base58CheckDecode(tronDepositAddress(FIXED_ID)).subarray(1).toString('hex');
    expect(tron20).not.toBe(evmDepositAddress(FIXED_ID).slice(2).toLowerCase());
  });
});

describe('solanaDepositAddress', () => {
  const base = base58.decode(SOLANA_DEPOSIT_AUTHORITY);
  const owner = base58.decode(SPL_TOKEN_PROGRAM);

  it('is create_with_seed(deposit authority, the id’s 32 hex digits, SPL Token program)', () => {
    for (const id of [...IDS.slice(0, 200), FIXED_ID, FIXED_ID.toUpperCase()] as string[]) {
      const expected = createWithSeed(base, id.replace(/-/g, '').toLowerCase(), owner);
      expect(solanaDepositAddress(id)).toBe(base58.encode(expected));
    }
  });

  it('decodes to 32 bytes, deterministic and unique', () => {
    const seen = new Set<string>();
    for (const id of IDS) {
      const a = solanaDepositAddress(id);
      expect(base58.decode(a)).toHaveLength(32);
      expect(solanaDepositAddress(id)).toBe(a);
      seen.add(a);
    }
    expect(seen.size).toBe(N);
  });
});

describe('depositAddresses', () => {
  it('gives one entry per test chain, in order, sharing one EVM address', () => {
    const chains = chainsFor('test');
    const list = depositAddresses(FIXED_ID, chains);
    expect(list.map((e) => e.networkId)).toEqual(chains.map((c) => c.networkId));
    for (const [i, e] of list.entries()) {
      const c = chains[i]!;
      expect(e).toEqual({
        chainId: c.chainId,
        chainName: c.chainName,
        family: c.family,
        networkId: c.networkId,
        depositAddress: c.family === 'evm' ? evmDepositAddress(FIXED_ID) : c.family === 'tron' ? tronDepositAddress(FIXED_ID) : solanaDepositAddress(FIXED_ID),
        tokens: [...c.tokens],
      });
      expect(e.tokens).not.toBe(c.tokens); // callers get their own array
    }
    expect(new Set(list.filter((e) => e.family === 'evm').map((e) => e.depositAddress)).size).toBe(1);
  });

  it('lists only the filtered token and leaves out chains without it', () => {
    const usdc = depositAddresses(FIXED_ID, chainsFor('test'), 'USDC');
    expect(usdc.map((e) => e.networkId)).toEqual([11155111, 84532, 80002, 421614, 103]);
    const usdt = depositAddresses(FIXED_ID, chainsFor('live'), 'USDT');
    expect(usdt.map((e) => e.networkId)).toEqual([1, 137, 8453, 42161, 10, 56, 728126428]);
    for (const e of [...usdc, ...usdt]) expect(e.tokens).toHaveLength(1);
    expect(usdt.every((e) => e.tokens[0]!.symbol === 'USDT')).toBe(true);
    expect(usdt.find((e) => e.networkId === 56)?.tokens[0]?.decimals).toBe(18);
    expect(depositAddresses(FIXED_ID, chainsFor('live'), 'DAI')).toEqual([]);
  });

  it('works on a subset (a route lock) and on no chains', () => {
    const solana = chainsFor('live').filter((c) => c.networkId === 101);
    const list = depositAddresses(FIXED_ID, solana);
    expect(list).toHaveLength(1);
    expect(list[0]!.depositAddress).toBe(solanaDepositAddress(FIXED_ID));
    expect(depositAddresses(FIXED_ID, [])).toEqual([]);
  });

  it('rejects an id that is not a UUID', () => {
    expect(() => depositAddresses('nope', chainsFor('test'))).toThrow(TypeError);
  });
});
