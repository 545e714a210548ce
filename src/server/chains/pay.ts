import { planTransfer } from '../../chains/plan.js';
import { sendTokenTransfer, TransferRefused } from '../../chains/transfer.js';
import { parseDepositAddresses } from '../../store/json-columns.js';
import { ApiError } from '../api-error.js';
import { testAmount } from '../pages/checkout-state.js';
import type { ChainPayment, ChainPayOptions } from '../public-types.js';
import type { AppDeps } from '../route.js';
import type { ChainsControl } from './types.js';

/**
 * Pays a test invoice from a funded local account with a real transfer, signed with the account's
 * key and sent to the network's node (CONTRACT §14: the checkout page's "Pay from a test wallet",
 * `emulator.chains.pay`); `svc chain pay` does the same from the CLI, through the RPC URL. Resolves
 * once the watcher has processed it, and, unless `confirm: false`, once the blocks its confirmation
 * needs are mined.
 */
export async function payFromWallet(deps: AppDeps, chains: ChainsControl, invoiceId: string, options: ChainPayOptions = {}): Promise<ChainPayment> {
  const invoice = await deps.db.invoices.findInvoice(invoiceId);
  if (!invoice) throw new ApiError(404, 'invoice_not_found', `No invoice ${invoiceId}.`);
  if (invoice.environment !== 'test') throw new ApiError(403, 'test_mode_only', 'Local chains pay test invoices only: live invoices never touch them.');
  const plan = planTransfer({
    addresses: parseDepositAddresses(invoice.addresses),
    networkId: options.networkId,
    token: options.token,
    amount: options.amount ?? testAmount(invoice, 'full'),
    account: options.account,
  });
  if ('refused' in plan) {
    const code = plan.param === 'networkId' || plan.param === 'token' ? 'route_not_available' : 'validation_failed';
    throw new ApiError(400, code, `${plan.refused}.`, plan.param);
  }
  const chain = chains.chain(plan.networkId);
  const txHash = await sendTokenTransfer({
    rpcUrl: chain.node.url,
    chainId: plan.networkId,
    token: plan.contractAddress,
    privateKey: plan.account.privateKey,
    to: plan.depositAddress,
    units: plan.units,
  }).catch((error: unknown) => {
    if (error instanceof TransferRefused) throw new ApiError(400, 'validation_failed', `The transfer was refused: ${error.message}`, 'amount');
    throw error;
  });
  await chains.sync(plan.networkId);
  if (options.confirm !== false && chains.confirmations > 1) await chains.mine(plan.networkId, chains.confirmations - 1);
  const after = await deps.db.invoices.findInvoice(invoiceId);
  return {
    txHash,
    networkId: plan.networkId,
    token: plan.token,
    amount: plan.amount,
    from: plan.account.address,
    to: plan.depositAddress,
    invoiceStatus: after?.status ?? invoice.status,
  };
}
