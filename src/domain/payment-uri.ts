import type { ChainFamily } from './chains.js';
import { toBaseUnits } from './money.js';

export interface PaymentTarget {
  family: ChainFamily;
  networkId: number;
  depositAddress: string;
  token: { symbol: string; contractAddress: string; decimals: number };
  /** Decimal amount in token units (stablecoins are valued 1:1 with USD). */
  amount: string;
}

/**
 * The payment URI a wallet understands, for the checkout page's QR code:
 * - EVM: EIP-681 `ethereum:<token>@<chainId>/transfer?address=<deposit>&uint256=<base units>`;
 * - Solana: a Solana Pay transfer request `solana:<recipient>?amount=<decimal>&spl-token=<mint>`;
 * - Tron: no URI scheme is shared by Tron wallets, so the address itself.
 */
export function paymentUri(t: PaymentTarget): string {
  switch (t.family) {
    case 'evm':
      return `ethereum:${t.token.contractAddress}@${t.networkId}/transfer?address=${t.depositAddress}&uint256=${toBaseUnits(t.amount, t.token.decimals)}`;
    case 'solana':
      return `solana:${t.depositAddress}?amount=${encodeURIComponent(t.amount)}&spl-token=${t.token.contractAddress}`;
    case 'tron':
      return t.depositAddress;
  }
}
