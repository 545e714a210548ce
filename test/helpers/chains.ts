import {
  type Account,
  type Chain as ViemChain,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseAbi,
  parseUnits,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { TestEmulator } from './emulator.js';

/** anvil's first default account: funded on every local chain (CONTRACT §14). */
export const ACCOUNT_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export const ERC20 = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function decimals() view returns (uint8)',
]);

export interface Chain {
  networkId: number;
  name: string;
  rpcUrl: string;
  blockNumber: number;
  confirmations: number;
  tokens: { symbol: string; contractAddress: string; decimals: number }[];
  accounts: { address: string; privateKey: string }[];
}

/** `GET /__emulator/chains`, one network's entry. */
export async function chainOf(emu: TestEmulator, networkId: number): Promise<Chain> {
  const res = await emu.call('GET', '/__emulator/chains');
  const chain = (res.body.data as Chain[]).find((c) => c.networkId === networkId);
  if (!chain) throw new Error(`no local chain ${networkId}: ${res.text}`);
  return chain;
}

/** viem clients on a local chain's rpcUrl, as an integrator makes them. */
export function clientsFor(
  chain: Chain,
  privateKey: string = ACCOUNT_0,
  headers?: Record<string, string>,
): { public: PublicClient<Transport, ViemChain>; wallet: WalletClient<Transport, ViemChain, Account> } {
  const definition = defineChain({
    id: chain.networkId,
    name: chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  const transport = http(chain.rpcUrl, headers ? { fetchOptions: { headers } } : {});
  return {
    public: createPublicClient({ chain: definition, transport, cacheTime: 0 }),
    wallet: createWalletClient({ chain: definition, transport, account: privateKeyToAccount(privateKey as Hex) }),
  };
}

/**
 * A real ERC-20 transfer signed by `privateKey` (default account 0) through the chain's rpcUrl, waited
 * for until mined; `token` defaults to the network's USDC. Returns the transaction's hash.
 */
export async function transfer(
  emu: TestEmulator,
  networkId: number,
  to: string,
  amount: string,
  options: { token?: string; privateKey?: string; decimals?: number } = {},
): Promise<Hex> {
  const chain = await chainOf(emu, networkId);
  const { public: reader, wallet } = clientsFor(chain, options.privateKey);
  const token = (options.token ?? chain.tokens[0]!.contractAddress) as Hex;
  const hash = await wallet.writeContract({
    address: token,
    abi: ERC20,
    functionName: 'transfer',
    args: [to as Hex, parseUnits(amount, options.decimals ?? 6)],
  });
  const receipt = await reader.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (receipt.status !== 'success') throw new Error(`transfer ${hash} reverted`);
  return hash;
}

/** The invoice's entries on the control plane (payments, and transfers that credit nothing). */
export async function paymentsOf(emu: TestEmulator, invoiceId: string): Promise<Record<string, unknown>[]> {
  return (await emu.call('GET', `/__emulator/invoices/${invoiceId}/payments`)).body.data;
}

/**
 * Waits until the invoice lists an entry for `txHash` (the watcher processes a block within
 * milliseconds of its mining; the ceiling is generous, never a timing assertion).
 */
export async function seen(emu: TestEmulator, invoiceId: string, txHash: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const entry = (await paymentsOf(emu, invoiceId)).find((p) => p.txHash === txHash);
    if (entry) return entry;
    if (Date.now() > deadline) throw new Error(`the emulator did not list ${txHash} on invoice ${invoiceId}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
