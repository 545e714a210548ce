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
 * - Solana: a program-derived address of a deposit program, seeds `["deposit", uuid bytes]`.
 *
 * This runs on every invoice creation, so the constant parts of each preimage are laid out once
 * in module-level buffers and only the per-invoice bytes are written per call. That is safe
 * because every function here is synchronous: no other call can interleave and reuse a buffer.
 */
import { isOnEd25519Curve } from './ed25519-curve.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
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
//   Solana program = sha256("svc-emulator/solana-deposit-program")
// They must never change: every deposit address the emulator has handed out depends on them.

/** Address of the deposit factory, the same on every EVM chain. */
export const EVM_DEPOSIT_FACTORY = '0x475d27279c75faff13048473a4FAdCa0d25a1c13';
/** Forwarder implementation the EIP-1167 proxies delegate to (same 20 bytes on Tron). */
export const DEPOSIT_FORWARDER = '0xd6684Ee325268489c0B9740a442c50f2d18739C9';
/** Address of the deposit factory on Tron (mainnet and Shasta alike). */
export const TRON_DEPOSIT_FACTORY = 'TVM5gjS3NkLCTWNz1D4xm8hHncgjYnztjg';
/** Program id of the Solana deposit program the PDAs belong to. */
export const SOLANA_DEPOSIT_PROGRAM = 'Hq3fbtDTVMdGMYu6rTGehEdD8Pr4A2tz8UYQjyesk8nR';

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

const b58check = createBase58check(sha256);

/** EIP-1167 creation code: a 10-byte constructor returning the 45-byte proxy runtime. */
function minimalProxyInitCode(implementationHex40: string): Uint8Array {
  const hex = `3d602d80600a3d3981f3363d3d373d3d3d363d73${implementationHex40}5af43d82803e903d91602b57fd5bf3`;
  const code = new Uint8Array(hex.length / 2);
  hexInto(hex, code, 0);
  return code;
}

const INIT_CODE_HASH = keccak_256(minimalProxyInitCode(DEPOSIT_FORWARDER.slice(2).toLowerCase()));

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
  const raw = b58check.decode(TRON_DEPOSIT_FACTORY); // 0x41 ‖ 20 bytes
  return create2Preimage(raw[0]!, raw.subarray(1));
})();

const TRON_PAYLOAD = new Uint8Array(21);
TRON_PAYLOAD[0] = 0x41;

const PDA_SEED = new TextEncoder().encode('deposit');
const PDA_MARKER = new TextEncoder().encode('ProgramDerivedAddress');
const PDA_UUID_AT = PDA_SEED.length;
const PDA_BUMP_AT = PDA_UUID_AT + 16;
// seeds ‖ bump ‖ program id ‖ marker, as solana-program's create_program_address hashes them.
const PDA_PREIMAGE = (() => {
  const program = base58.decode(SOLANA_DEPOSIT_PROGRAM);
  const buf = new Uint8Array(PDA_BUMP_AT + 1 + program.length + PDA_MARKER.length);
  buf.set(PDA_SEED, 0);
  buf.set(program, PDA_BUMP_AT + 1);
  buf.set(PDA_MARKER, PDA_BUMP_AT + 1 + program.length);
  return buf;
})();

const CHECKSUM_ASCII = new Uint8Array(40);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The 16 bytes of a UUID; any case is accepted, as the same id must give the same address. */
function uuidBytes(invoiceId: string): Uint8Array {
  if (typeof invoiceId !== 'string' || !UUID_RE.test(invoiceId)) {
    throw new TypeError(`invoice id is not a UUID: ${JSON.stringify(invoiceId)}`);
  }
  const out = new Uint8Array(16);
  hexInto(invoiceId.replace(/-/g, ''), out, 0);
  return out;
}

/** EIP-55 checksum of 40 lowercase hex digits: uppercase where the address hash nibble is ≥ 8. */
function checksumLower(lower: string): string {
  for (let i = 0; i < 40; i++) CHECKSUM_ASCII[i] = lower.charCodeAt(i);
  const hash = keccak_256(CHECKSUM_ASCII);
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

/** Last 20 bytes of keccak256 over a CREATE2 preimage, with the invoice's salt written in. */
function create2(preimage: Uint8Array, uuid: Uint8Array): Uint8Array {
  // Hashing the id spreads 16 bytes over the 32-byte salt and keeps it opaque on chain.
  preimage.set(keccak_256(uuid), 21);
  return keccak_256(preimage).subarray(12);
}

function evmFromUuid(uuid: Uint8Array): string {
  return checksumLower(toHex(create2(EVM_PREIMAGE, uuid)));
}

function tronFromUuid(uuid: Uint8Array): string {
  TRON_PAYLOAD.set(create2(TRON_PREIMAGE, uuid), 1);
  return b58check.encode(TRON_PAYLOAD);
}

function solanaFromUuid(uuid: Uint8Array): string {
  PDA_PREIMAGE.set(uuid, PDA_UUID_AT);
  // find_program_address: the highest bump whose hash is off the curve, so no private key exists.
  for (let bump = 255; bump > 0; bump--) {
    PDA_PREIMAGE[PDA_BUMP_AT] = bump;
    const hash = sha256(PDA_PREIMAGE);
    if (!isOnEd25519Curve(hash)) return base58.encode(hash);
  }
  // Each try succeeds with probability ~1/2, so this is unreachable in practice.
  throw new Error('no viable bump seed for the deposit PDA');
}

/**
 * The invoice's EVM deposit address (CREATE2, EIP-55 checksummed), the same on every EVM chain.
 * @throws TypeError when `invoiceId` is not a UUID.
 */
export function evmDepositAddress(invoiceId: string): string {
  return evmFromUuid(uuidBytes(invoiceId));
}

/**
 * The invoice's Tron deposit address (TVM CREATE2, Base58Check with the 0x41 prefix).
 * @throws TypeError when `invoiceId` is not a UUID.
 */
export function tronDepositAddress(invoiceId: string): string {
  return tronFromUuid(uuidBytes(invoiceId));
}

/**
 * The invoice's Solana deposit address (an off-curve PDA, Base58 of 32 bytes).
 * @throws TypeError when `invoiceId` is not a UUID.
 */
export function solanaDepositAddress(invoiceId: string): string {
  return solanaFromUuid(uuidBytes(invoiceId));
}

/**
 * The `addresses` of an invoice: one entry per given chain, in the given order. With
 * `tokenFilter` (a route lock on a token symbol, matched exactly) each entry lists only that
 * token, and chains that do not carry it are left out, since paying there is impossible.
 * @throws TypeError when `invoiceId` is not a UUID.
 */
export function depositAddresses(
  invoiceId: string,
  chains: readonly ChainInfo[],
  tokenFilter?: string,
): DepositAddress[] {
  const uuid = uuidBytes(invoiceId);
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
        depositAddress = evm ??= evmFromUuid(uuid);
        break;
      case 'tron':
        depositAddress = tron ??= tronFromUuid(uuid);
        break;
      case 'solana':
        depositAddress = solana ??= solanaFromUuid(uuid);
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
