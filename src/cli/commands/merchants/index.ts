import { defineCommand, withHandler } from '../../spec.js';
import { idempotencyOptions, listOptions } from '../shared-options.js';

export const createMerchantSpec = defineCommand({
  name: 'merchants create',
  summary: 'create a sub-merchant (asks for missing values on a terminal)',
  options: [
    { flags: '--external-tenant-id <id>', description: 'your own identifier for the tenant' },
    { flags: '--name <name>', description: 'merchant name' },
    { flags: '--email <email>', description: 'contact e-mail' },
    ...idempotencyOptions,
  ],
  examples: ['svc merchants create --external-tenant-id acme --name "Acme Coffee" --email owner@acme.example'],
});

export const getMerchantSpec = defineCommand({
  name: 'merchants get',
  summary: 'show one sub-merchant',
  args: [{ name: 'merchantId', description: 'merchant id' }],
});

export const listMerchantsSpec = defineCommand({
  name: 'merchants list',
  summary: 'list sub-merchants, newest first',
  options: listOptions,
});

export const merchantKeysSpec = defineCommand({
  name: 'merchants keys',
  summary: 'issue a new merchant key (local emulator; shown once)',
  args: [{ name: 'merchantId', description: 'merchant id' }],
});

export const merchantCommands = [
  withHandler(createMerchantSpec, async () => (await import('./create.js')).createMerchantCommand),
  withHandler(getMerchantSpec, async () => (await import('./get.js')).getMerchantCommand),
  withHandler(listMerchantsSpec, async () => (await import('./list.js')).listMerchantsCommand),
  withHandler(merchantKeysSpec, async () => (await import('./keys.js')).merchantKeysCommand),
];
