import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { concat, getAddress, getContractAddress, isAddress, keccak256, slice, toBytes, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  DEPOSIT_FORWARDER,
  depositAddresses,
  EVM_DEPOSIT_FACTORY,
  evmDepositAddress,
  SOLANA_DEPOSIT_PROGRAM,
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

const P = 2n ** 255n - 19n;
const D = (-121665n * modPow(121666n, P - 2n)) % P + P;

function modPow(b: bigint, e: bigint): bigint {
  let r = 1n;
  b %= P;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return r;
}

/** Whether 32 bytes decompress to an ed25519 point, by Euler's criterion on x² = (y²−1)/(dy²+1). */
function isOnCurve(bytes: Uint8Array): boolean {
  const le = Buffer.from(bytes).reverse();
  le[0]! &= 0x7f;
  const y = BigInt(`0x${le.toString('hex')}`) % P;
  const y2 = (y * y) % P;
  const u = (y2 - 1n + P) % P;
  const v = (D * y2 + 1n) % P;
  const uv = (u * v) % P;
  return uv === 0n || modPow(uv, (P - 1n) / 2n) === 1n;
}

/** solana-program's create_program_address. */
function createProgramAddress(seeds: Uint8Array[], programId: Uint8Array): Uint8Array | null {
  const h = sha256(...seeds, programId, Buffer.from('ProgramDerivedAddress'));
  return isOnCurve(h) ? null : h;
}

/** solana-program's find_program_address: bumps 255 down to 1, first off-curve hash wins. */
function findProgramAddress(seeds: Uint8Array[], programId: Uint8Array): [Uint8Array, number] {
  for (let bump = 255; bump > 0; bump--) {
    const a = createProgramAddress([...seeds, Uint8Array.of(bump)], programId);
    if (a) return [a, bump];
  }
  throw new Error('no bump');
}

describe('reference implementations', () => {
  it('reproduce solana-web3.js createProgramAddress vectors', () => {
    const program = base58.decode('BPFLoader1111111111111111111111111111111111');
    const utf8 = (s: string) => Buffer.from(s, 'utf8');
    const pda = (seeds: Uint8Array[]) => {
      const a = createProgramAddress(seeds, program);
      return a && base58.encode(a);
    };
    expect(pda([utf8(''), Uint8Array.of(1)])).toBe('3gF2KMe9KiC6FNVBmfg9i267aMPvK37FewCip4eGBFcT');
    expect(pda([utf8('☉')])).toBe('7ytmC1nT1xY4RfxCV2ZgyA7UakC93do5ZdyhdF3EtPj7');
    expect(pda([utf8('Talking'), utf8('Squirrels')])).toBe('HwRVBufQ4haG5XSgpspwKtNd3PC9GM9m1196uJW36vds');
    expect(pda([base58.decode('SeedPubey1111111111111111111111111111111111')])).toBe(
      'GUs5qLUfsEHkcMB9T38vjr18ypEhRuNWiePW2LoK4E3K',
    );
  });

  it('the curve test agrees with @noble/curves on random bytes and real public keys', () => {
    for (let i = 0; i < 300; i++) {
      const b = randomBytes(32);
      let noble = true;
      try {
        ed25519.Point.fromBytes(b, true);
      } catch {
        noble = false;
      }
      expect(isOnCurve(b)).toBe(noble);
    }
    for (let i = 0; i < 20; i++) {
      expect(isOnCurve(ed25519.getPublicKey(randomBytes(32)))).toBe(true);
    }
  });
});

describe('constants', () => {
  it('are the documented nothing-up-my-sleeve values', () => {
    const last20 = (s: string) => slice(keccak256(toBytes(s)), 12);
    expect(EVM_DEPOSIT_FACTORY).toBe(getAddress(last20('svc-emulator/evm-deposit-factory')));
    expect(DEPOSIT_FORWARDER).toBe(getAddress(last20('svc-emulator/deposit-forwarder')));
    expect(TRON_DEPOSIT_FACTORY).toBe(
      base58CheckEncode(Buffer.from(`41${last20('svc-emulator/tron-deposit-factory').slice(2)}`, 'hex')),
    );
    expect(SOLANA_DEPOSIT_PROGRAM).toBe(base58.encode(sha256(Buffer.from('svc-emulator/solana-deposit-program'))));
  });

  it('pin the addresses of one invoice (a change here re-addresses every invoice)', () => {
    expect(evmDepositAddress(FIXED_ID)).toBe('0xa4A6492dAb1275c84811922a087851C8bC5b6e2a');
    expect(tronDepositAddress(FIXED_ID)).toBe('TKTFi75kgJ2pyTixAThxGDYYVAz1GSrVcP');
    expect(solanaDepositAddress(FIXED_ID)).toBe('HY1AgKwwRwPbQc3ceZMRHgTFu9YbgzQx4Mk3kPiVNV8N');
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

  it.each(['', '0x', 'abc', '0x' + 'g'.repeat(40), 'a'.repeat(39), 'a'.repeat(41)])('rejects %j', (s) => {
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
        salt: keccak256(uuidHex(id)),
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

  it.each(['', 'not-a-uuid', '3b241101e2bb42558caf4136c566a962', '3b241101-e2bb-4255-8caf-4136c566a96', 'inv_123'])(
    'rejects the id %j',
    (id) => {
      expect(() => evmDepositAddress(id)).toThrow(TypeError);
      expect(() => tronDepositAddress(id)).toThrow(TypeError);
      expect(() => solanaDepositAddress(id)).toThrow(TypeError);
    },
  );
});

describe('tronDepositAddress', () => {
  const factory = base58CheckDecode(TRON_DEPOSIT_FACTORY);
  const codeHash = keccak256(minimalProxyInitCode(DEPOSIT_FORWARDER));

  it('is TVM CREATE2 (0x41 ‖ factory ‖ salt ‖ code hash) in Base58Check', () => {
    expect(factory).toHaveLength(21);
    expect(factory[0]).toBe(0x41);
    for (const id of IDS.slice(0, 200).concat(FIXED_ID)) {
      const hash = keccak256(concat([`0x${factory.toString('hex')}`, keccak256(uuidHex(id)), codeHash]));
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
  const program = base58.decode(SOLANA_DEPOSIT_PROGRAM);
  const seed = Buffer.from('deposit');

  it('is the canonical PDA of ["deposit", uuid bytes] under the deposit program', () => {
    for (const id of IDS.slice(0, 200).concat(FIXED_ID)) {
      const [expected] = findProgramAddress([seed, Buffer.from(uuidHex(id).slice(2), 'hex')], program);
      expect(solanaDepositAddress(id)).toBe(base58.encode(expected));
    }
  });

  it('decodes to 32 off-curve bytes, deterministic and unique', () => {
    const seen = new Set<string>();
    for (const id of IDS) {
      const a = solanaDepositAddress(id);
      const bytes = base58.decode(a);
      expect(bytes).toHaveLength(32);
      expect(isOnCurve(bytes)).toBe(false);
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
        depositAddress:
          c.family === 'evm'
            ? evmDepositAddress(FIXED_ID)
            : c.family === 'tron'
              ? tronDepositAddress(FIXED_ID)
              : solanaDepositAddress(FIXED_ID),
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
