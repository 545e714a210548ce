import { ContractFunctionExecutionError, createWalletClient, defineChain, http, isHex, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hexAddress } from './genesis.js';

const ERC20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

/** A token transfer to sign and send. */
export interface TransferRequest {
  /** A JSON-RPC URL: a local chain's `rpcUrl` (through svc) or its node's. */
  rpcUrl: string;
  chainId: number;
  /** The token contract. */
  token: string;
  /** The sender's private key (a funded local account). */
  privateKey: string;
  to: string;
  /** In the token's base units. */
  units: bigint;
  /** Headers for the RPC (the control token, `Authorization: Bearer …`, when svc asks for one). */
  headers?: Record<string, string>;
}

/**
 * Signs an ERC-20 `transfer` with the sender's key and sends it, as any wallet would
 * (eth_sendRawTransaction: gas, fees and nonce asked of the node); resolves with the transaction's
 * hash once the node took it. On a local chain it is mined at once (automine).
 */
export async function sendTokenTransfer(request: TransferRequest): Promise<string> {
  const { privateKey } = request;
  if (!isHex(privateKey) || privateKey.length !== 66) throw new TypeError('a private key is 32 bytes of hex, 0x…');
  const chain = defineChain({
    id: request.chainId,
    name: `chain ${request.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [request.rpcUrl] } },
  });
  const transport = http(request.rpcUrl, { retryCount: 0, ...(request.headers ? { fetchOptions: { headers: request.headers } } : {}) });
  const wallet = createWalletClient({ account: privateKeyToAccount(privateKey), chain, transport });
  try {
    return await wallet.writeContract({
      address: hexAddress(request.token),
      abi: ERC20,
      functionName: 'transfer',
      args: [hexAddress(request.to), request.units],
    });
  } catch (error) {
    // The contract refused it (a balance too small): the node's reason, without viem's report around it.
    if (error instanceof ContractFunctionExecutionError) throw new TransferRefused(error.shortMessage.replace(/\s+/g, ' '));
    throw error;
  }
}

/** The token contract reverted the transfer (the node's reason in the message). */
export class TransferRefused extends Error {}
