import { createHash } from 'node:crypto';
import { base58 } from '@scure/base';
import { toChecksumAddress } from '../../../domain/addresses.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/**
 * What is wrong with a deposit address of this family (CONTRACT §3), or null: EVM addresses EIP-55
 * checksummed, Tron Base58Check with the 0x41 prefix, Solana 32 bytes in Base58. Only the format:
 * how a deployment derives its addresses is its own.
 */
export function addressProblem(family: string, address: string): string | null {
  if (family === 'evm') {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return 'not 0x and 40 hex digits';
    return toChecksumAddress(address) === address ? null : 'not EIP-55 checksummed';
  }
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    return 'not Base58';
  }
  if (family === 'solana') return bytes.length === 32 ? null : `${bytes.length} bytes, not 32`;
  if (family === 'tron') {
    if (bytes.length !== 25 || bytes[0] !== 0x41) return 'not 25 bytes starting 0x41';
    const check = sha256(sha256(bytes.subarray(0, 21))).subarray(0, 4);
    return Buffer.from(bytes.subarray(21)).equals(check) ? null : 'a wrong Base58Check checksum';
  }
  return null;
}
