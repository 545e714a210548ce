/**
 * Deterministic deposit addresses per invoice (CONTRACT §3).
 *
 * Each address is derived the way a real non-custodial gateway would derive it, so that it has
 * the right shape, checksum and on-chain meaning, yet nothing is deployed and no key exists:
 * - EVM: the CREATE2 address at which a factory would deploy an EIP-1167 minimal proxy (to a
 *   forwarder that sweeps funds to the merchant) with a salt taken from the invoice id. Payments
 *   can land there before the proxy exists; that is what "counterfactual" means. Because the
 *   factory sits at the same address on every EVM chain (deployed by one deployer at one nonce,
 *   or through a deterministic-deployment proxy), the invoice has one address on all EVM chains.
 * - Tron: the same scheme under TVM's CREATE2, whose preimage starts with the deployer's 21-byte
 *   address (0x41 ‖ 20 bytes) where the EVM uses 0xff ‖ 20 bytes (java-tron
 *   `WalletUtil.generateContractAddress2`).
 * - Solana: an SPL token account at an address derived with `create_with_seed` (what
 *   `SystemProgram.createAccountWithSeed` uses): sha256(deposit authority ‖ seed ‖ owner), with the
 *   invoice id's 32 hex digits as the seed and the SPL Token program as the owner. Unlike a
 *   program-derived address it needs no curve check, which cost 60 µs per invoice.
 *
 * This runs on every invoice creation, so the constant parts of each preimage are laid out once
 * in module-level buffers and only the per-invoice bytes are written per call. That is safe
 * because every function here is synchronous: no other call can interleave and reuse a buffer.
 */
import { sha256Bytes } from './sha256.js';
import { keccak256 } from './keccak.js';
import { isUuid } from './ids.js';
import { base58, createBase58check } from '@scure/base';
import type { ChainFamily, ChainInfo, TokenInfo } from './chains.js';

/** One `addresses[]` entry of an invoice: where to pay on one chain, and with which tokens. */
export interface DepositAddress {
  chainId: string;
  chainName: string;
  family: ChainFamily;
  networkId: number;
  depositAddress: string;
  tokens: TokenInfo[];
}

// The constants below are "nothing up my sleeve" values, not deployments:
//   EVM factory    = keccak256("svc-emulator/evm-deposit-factory")[12:]
//   forwarder      = keccak256("svc-emulator/deposit-forwarder")[12:]
//   Tron factory   = 0x41 ‖ keccak256("svc-emulator/tron-deposit-factory")[12:]
//   Solana deposit authority = sha256("svc-emulator/solana-deposit-authority")
// They must never change: every deposit address the emulator has handed out depends on them.

/** Address of the deposit factory, the same on every EVM chain. */
export const EVM_DEPOSIT_FACTORY = '0x475d27279c75faff13048473a4FAdCa0d25a1c13';
/** Forwarder implementation the EIP-1167 proxies delegate to (same 20 bytes on Tron). */
export const DEPOSIT_FORWARDER = '0xd6684Ee325268489c0B9740a442c50f2d18739C9';
/** Address of the deposit factory on Tron (mainnet and Shasta alike). */
export const TRON_DEPOSIT_FACTORY = 'TVM5gjS3NkLCTWNz1D4xm8hHncgjYnztjg';
/** The base key of every Solana deposit account (`create_with_seed`'s `base`): Base58 of sha256("svc-emulator/solana-deposit-authority"). */
export const SOLANA_DEPOSIT_AUTHORITY = '4hf8g8utgFyRui429kHNttMiajtdsno3FUdZquxN2id2';
/** The SPL Token program: the owner of token accounts, so the seed-derived account can hold USDC. */
export const SPL_TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hexInto(hex: string, out: Uint8Array, offset: number): void {
  for (let i = 0; i < hex.length / 2; i++) {
    out[offset + i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  }
}

function toHex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX_BYTE[bytes[i]!]!;
  return s;
}

const b58check = createBase58check(sha256Bytes);

/*
 * The constant parts of the preimages are written out, not derived at import (keccak-256, SHA-256
 * and Base58 in cold JavaScript took several milliseconds of every start). test/unit/addresses.test.ts
 * checks the addresses they give against viem's CREATE2 and the documented constructions.
 */

/**
 * keccak256 of the EIP-1167 creation code for DEPOSIT_FORWARDER: a 10-byte constructor returning the
 * 45-byte proxy runtime, `3d602d80600a3d3981f3363d3d373d3d3d363d73 ‖ forwarder ‖ 5af43d82803e903d91602b57fd5bf3`.
 */
const INIT_CODE_HASH = bytesOf('2a19432aa7273c2642c2ed10afd37ebecd864d2169d1bf74dc5d061b968c26c7');

function bytesOf(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  hexInto(hex, out, 0);
  return out;
}

/** Preimage `prefix ‖ deployer(20) ‖ salt(32) ‖ keccak256(initCode)(32)`; the salt is written per call. */
function create2Preimage(prefix: number, deployer20: Uint8Array): Uint8Array {
  const buf = new Uint8Array(85);
  buf[0] = prefix;
  buf.set(deployer20, 1);
  buf.set(INIT_CODE_HASH, 53);
  return buf;
}

const EVM_PREIMAGE = (() => {
  const factory = new Uint8Array(20);
  hexInto(EVM_DEPOSIT_FACTORY.slice(2).toLowerCase(), factory, 0);
  return create2Preimage(0xff, factory);
})();

const TRON_PREIMAGE = (() => {
  const raw = bytesOf('41d48d6f197229cfe4a3ef8aae77d5eeffcc12e24c'); // TRON_DEPOSIT_FACTORY decoded: 0x41 ‖ 20 bytes
  return create2Preimage(raw[0]!, raw.subarray(1));
})();

const TRON_PAYLOAD = new Uint8Array(21);
TRON_PAYLOAD[0] = 0x41;

// base ‖ seed ‖ owner, as solana-program's Pubkey::create_with_seed hashes them; the seed is written per call.
const SEED_AT = 32;
const SEED_PREIMAGE = (() => {
  const buf = new Uint8Array(32 + 32 + 32);
  buf.set(bytesOf('36fd68d4d836ae07491f41277f3277964543dfa6c1d63401a9201e96989875c5'), 0); // SOLANA_DEPOSIT_AUTHORITY decoded
  buf.set(bytesOf('06ddf6e1d765a193d9cbe146ceeb79ac1cb485ed5f5b37913a8cf5857eff00a9'), SEED_AT + 32); // SPL_TOKEN_PROGRAM decoded
  return buf;
})();

const CHECKSUM_ASCII = new Uint8Array(40);

/** The 16 bytes of a UUID; any case is accepted, as the same id must give the same address. */
function uuidBytes(invoiceId: string): Uint8Array {
  if (typeof invoiceId !== 'string' || !isUuid(invoiceId)) {
    throw new TypeError(`invoice id is not a UUID: ${JSON.stringify(invoiceId)}`);
  }
  const out = new Uint8Array(16);
  hexInto(invoiceId.replace(/-/g, ''), out, 0);
  return out;
}

/** EIP-55 checksum of 40 lowercase hex digits: uppercase where the address hash nibble is ≥ 8. */
function checksumLower(lower: string): string {
  for (let i = 0; i < 40; i++) CHECKSUM_ASCII[i] = lower.charCodeAt(i);
  const hash = keccak256(CHECKSUM_ASCII);
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    const c = lower[i]!;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/**
 * EIP-55 checksummed form of a 20-byte address given as 40 hex digits (a `0x` prefix and any
 * letter case are accepted).
 * @throws TypeError when the input is not 40 hex digits.
 */
export function toChecksumAddress(lowerHex40: string): string {
  const hex = lowerHex40.startsWith('0x') || lowerHex40.startsWith('0X') ? lowerHex40.slice(2) : lowerHex40;
  if (!/^[0-9a-fA-F]{40}$/.test(hex)) {
    throw new TypeError(`not a 20-byte hex address: ${JSON.stringify(lowerHex40)}`);
  }
  return checksumLower(hex.toLowerCase());
}

/**
 * The CREATE2 salt of an invoice: its 16 id bytes right-aligned in 32 (`bytes32(uint128(id))`, as a
 * factory contract would take it). Unique per invoice already, so no hash is spent on it.
 */
const saltOf = (uuid: Uint8Array): Uint8Array => {
  const salt = new Uint8Array(32);
  salt.set(uuid, 16);
  return salt;
};

/** Last 20 bytes of keccak256 over a CREATE2 preimage, with the invoice's salt written in. */
function create2(preimage: Uint8Array, salt: Uint8Array): Uint8Array {
  preimage.set(salt, 21);
  return keccak256(preimage).subarray(12);
}

function evmFromSalt(salt: Uint8Array): string {
  return checksumLower(toHex(create2(EVM_PREIMAGE, salt)));
}

function tronFromSalt(salt: Uint8Array): string {
  TRON_PAYLOAD.set(create2(TRON_PREIMAGE, salt), 1);
  return b58check.encode(TRON_PAYLOAD);
}

function solanaFromId(invoiceId: string): string {
  const seed = invoiceId.replace(/-/g, '').toLowerCase();
  for (let i = 0; i < 32; i++) SEED_PREIMAGE[SEED_AT + i] = seed.charCodeAt(i);
  return base58.encode(sha256Bytes(SEED_PREIMAGE));
}

/**
 * The invoice's EVM deposit address (CREATE2, EIP-55 checksummed), the same on every EVM chain.
 * @throws TypeError when `invoiceId` is not a UUID.
 */
export function evmDepositAddress(invoiceId: string): string {
  return evmFromSalt(saltOf(uuidBytes(invoiceId)));
}

/**
 * The invoice's Tron deposit address (TVM CREATE2, Base58Check with the 0x41 prefix).
 * @throws TypeError when `invoiceId` is not a UUID.
 */
export function tronDepositAddress(invoiceId: string): string {
  return tronFromSalt(saltOf(uuidBytes(invoiceId)));
}

/**
 * The invoice's Solana deposit address (a `create_with_seed` address, Base58 of 32 bytes).
 * @throws TypeError when `invoiceId` is not a UUID.
 */
export function solanaDepositAddress(invoiceId: string): string {
  uuidBytes(invoiceId); // validates
  return solanaFromId(invoiceId);
}

/**
 * The `addresses` of an invoice: one entry per given chain, in the given order. With
 * `tokenFilter` (a route lock on a token symbol, matched exactly) each entry lists only that
 * token, and chains that do not carry it are left out, since paying there is impossible.
 * @throws TypeError when `invoiceId` is not a UUID.
 */
export function depositAddresses(invoiceId: string, chains: readonly ChainInfo[], tokenFilter?: string): DepositAddress[] {
  const uuid = uuidBytes(invoiceId);
  let salt: Uint8Array | undefined;
  // Computed at most once per family: all EVM chains share one address.
  let evm: string | undefined;
  let tron: string | undefined;
  let solana: string | undefined;
  const out: DepositAddress[] = [];
  for (const c of chains) {
    const tokens = tokenFilter === undefined ? c.tokens.slice() : c.tokens.filter((t) => t.symbol === tokenFilter);
    if (tokens.length === 0) continue;
    let depositAddress: string;
    switch (c.family) {
      case 'evm':
        depositAddress = evm ??= evmFromSalt((salt ??= saltOf(uuid)));
        break;
      case 'tron':
        depositAddress = tron ??= tronFromSalt((salt ??= saltOf(uuid)));
        break;
      case 'solana':
        depositAddress = solana ??= solanaFromId(invoiceId);
        break;
    }
    out.push({
      chainId: c.chainId,
      chainName: c.chainName,
      family: c.family,
      networkId: c.networkId,
      depositAddress,
      tokens,
    });
  }
  return out;
}
