import type { DepositAddress } from '../domain/addresses.js';
import { toBaseUnits } from '../domain/money.js';
import { LOCAL_ACCOUNTS, type LocalAccount } from './accounts.js';
import { localNetwork } from './networks.js';

/** What to send, from whom, where: a payment of an invoice from a local account. */
export interface TransferPlan {
  networkId: number;
  chainName: string;
  token: string;
  contractAddress: string;
  decimals: number;
  depositAddress: string;
  amount: string;
  units: bigint;
  account: LocalAccount;
}

export interface PlanInput {
  /** The invoice's `addresses` (CONTRACT §3). */
  addresses: readonly DepositAddress[];
  networkId?: number | undefined;
  token?: string | undefined;
  amount: string;
  /** Which default account pays (0–9; default 0). */
  account?: number | undefined;
}

/** Why no transfer can be planned, and the input at fault. */
export interface PlanRefusal {
  refused: string;
  param: 'networkId' | 'token' | 'amount' | 'account';
}

/**
 * The transfer that pays an invoice on a local chain (`svc chain pay`, the checkout's "Pay from a test
 * wallet"): the first route the invoice offers on a local chain, or the one asked for.
 */
export function planTransfer(input: PlanInput): TransferPlan | PlanRefusal {
  const index = input.account ?? 0;
  const account = LOCAL_ACCOUNTS[index];
  if (!Number.isInteger(index) || !account) return { refused: `account must be 0 to ${LOCAL_ACCOUNTS.length - 1}, not ${index}`, param: 'account' };
  const local = input.addresses.filter((a) => localNetwork(a.networkId) !== undefined);
  if (local.length === 0)
    return { refused: 'this invoice accepts no network that has a local chain (its routes are Tron or Solana, or live)', param: 'networkId' };
  const onNetwork = input.networkId === undefined ? local : local.filter((a) => a.networkId === input.networkId);
  if (onNetwork.length === 0) {
    return {
      refused: `this invoice takes no payment on network ${input.networkId} here (local chains it accepts: ${local.map((a) => a.networkId).join(', ')})`,
      param: 'networkId',
    };
  }
  for (const route of onNetwork) {
    const token = input.token === undefined ? route.tokens[0] : route.tokens.find((t) => t.symbol === input.token);
    if (!token) continue;
    let units: bigint;
    try {
      units = toBaseUnits(input.amount, token.decimals);
    } catch {
      return { refused: `amount ${input.amount} cannot be sent in ${token.symbol} (${token.decimals} decimals)`, param: 'amount' };
    }
    if (units <= 0n) return { refused: 'amount must be greater than 0', param: 'amount' };
    return {
      networkId: route.networkId,
      chainName: route.chainName,
      token: token.symbol,
      contractAddress: token.contractAddress,
      decimals: token.decimals,
      depositAddress: route.depositAddress,
      amount: input.amount,
      units,
      account,
    };
  }
  return { refused: `this invoice takes no ${input.token} on ${onNetwork.map((a) => a.chainName).join(', ')}`, param: 'token' };
}
