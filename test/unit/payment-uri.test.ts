import { describe, expect, it } from 'vitest';
import { paymentUri } from '../../src/domain/payment-uri.js';

describe('paymentUri', () => {
  it('EVM: EIP-681 token transfer with the amount in base units', () => {
    expect(
      paymentUri({
        family: 'evm',
        networkId: 84532,
        depositAddress: '0x34b7d7E35Ef51390e2309D404F7967C412f8219D',
        token: { symbol: 'USDC', contractAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 },
        amount: '25.5',
      }),
    ).toBe('ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer?address=0x34b7d7E35Ef51390e2309D404F7967C412f8219D&uint256=25500000');
  });

  it('EVM with an 18-decimal token (BNB Smart Chain)', () => {
    const uri = paymentUri({
      family: 'evm',
      networkId: 56,
      depositAddress: '0x34b7d7E35Ef51390e2309D404F7967C412f8219D',
      token: { symbol: 'USDT', contractAddress: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 },
      amount: '1.000001',
    });
    expect(uri.endsWith('&uint256=1000001000000000000')).toBe(true);
  });

  it('Solana: a Solana Pay transfer request with the SPL mint', () => {
    expect(
      paymentUri({
        family: 'solana',
        networkId: 103,
        depositAddress: '5cH28aTbWizyjM4HRezUHg8qU9q5ikqWDH9z7tpKKU4t',
        token: { symbol: 'USDC', contractAddress: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', decimals: 6 },
        amount: '10.00',
      }),
    ).toBe('solana:5cH28aTbWizyjM4HRezUHg8qU9q5ikqWDH9z7tpKKU4t?amount=10.00&spl-token=4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU');
  });

  it('Tron: the address', () => {
    expect(
      paymentUri({
        family: 'tron',
        networkId: 2494104990,
        depositAddress: 'TFb96eKSii3Vq83XbmXaHpy5rppitBvDyJ',
        token: { symbol: 'USDT', contractAddress: 'TG3XXyExBkPp9nzdajDZsozEu4BkaSJozs', decimals: 6 },
        amount: '1',
      }),
    ).toBe('TFb96eKSii3Vq83XbmXaHpy5rppitBvDyJ');
  });
});
