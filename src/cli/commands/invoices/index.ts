import { INVOICE_STATUSES } from '../../../contract/enums.js';
import { defineCommand, withHandler } from '../../spec.js';
import { idempotencyOptions, listOptions } from '../shared-options.js';

export const createInvoiceSpec = defineCommand({
  name: 'invoices create',
  summary: 'create an invoice: for a sub-merchant with --merchant (partner key), else as the merchant',
  options: [
    { flags: '--amount <amount>', description: 'decimal amount, e.g. 25.00 (asked on a terminal when missing)' },
    { flags: '--merchant <merchantId>', description: 'create for this sub-merchant with the partner key' },
    { flags: '--network-id <id>', description: 'lock the payment route to this network', parse: 'int' },
    { flags: '--token <symbol>', description: 'lock the payment route to this token (USDC, USDT)' },
    { flags: '--reference-id <ref>', description: 'your reference, e.g. an order number' },
    ...idempotencyOptions,
  ],
  examples: ['svc invoices create --amount 25.00', 'svc invoices create --merchant 3f0c… --amount 9.99 --network-id 84532 --token USDC --json'],
});

export const getInvoiceSpec = defineCommand({
  name: 'invoices get',
  summary: 'show one invoice, with its payments and events',
  description:
    "Against the emulator it also shows the invoice's payments (their ids are what `svc invoices confirm` takes) and its events in order, from the control plane; --json puts them under `_emulator`, next to the API's answer.",
  args: [{ name: 'invoiceId', description: 'invoice id' }],
});

export const listInvoicesSpec = defineCommand({
  name: 'invoices list',
  summary: 'list invoices, newest first',
  options: [
    { flags: '--merchant <merchantId>', description: "only this sub-merchant's invoices (partner key)" },
    { flags: '--status <status>', description: 'only invoices in this status', choices: INVOICE_STATUSES },
    ...listOptions,
  ],
});

export const payInvoiceSpec = defineCommand({
  name: 'invoices pay',
  summary: 'simulate a payment (test keys): default the remaining amount, confirmed',
  args: [{ name: 'invoiceId', description: 'invoice id' }],
  options: [
    { flags: '--amount <amount>', description: 'amount paid (default: what is left)' },
    { flags: '--token <symbol>', description: 'token paid with' },
    { flags: '--network-id <id>', description: 'network paid on', parse: 'int' },
    { flags: '--unconfirmed', description: 'seen on chain but not confirmed yet (confirm later)' },
    { flags: '--tx-hash <hash>', description: 'transaction hash to record' },
  ],
  examples: ['svc invoices pay 5b0e…', 'svc invoices pay 5b0e… --amount 5 --unconfirmed'],
});

export const confirmPaymentSpec = defineCommand({
  name: 'invoices confirm',
  summary: 'confirm a payment made with --unconfirmed',
  args: [
    { name: 'invoiceId', description: 'invoice id' },
    { name: 'paymentId', description: 'payment id' },
  ],
});

export const expireInvoiceSpec = defineCommand({
  name: 'invoices expire',
  summary: 'expire an invoice now (test keys)',
  args: [{ name: 'invoiceId', description: 'invoice id' }],
});

export const invoiceCommands = [
  withHandler(createInvoiceSpec, async () => (await import('./create.js')).createInvoiceCommand),
  withHandler(getInvoiceSpec, async () => (await import('./get.js')).getInvoiceCommand),
  withHandler(listInvoicesSpec, async () => (await import('./list.js')).listInvoicesCommand),
  withHandler(payInvoiceSpec, async () => (await import('./pay.js')).payInvoiceCommand),
  withHandler(confirmPaymentSpec, async () => (await import('./confirm.js')).confirmPaymentCommand),
  withHandler(expireInvoiceSpec, async () => (await import('./expire.js')).expireInvoiceCommand),
];
