import type { CommandSpec } from '../../spec.js';
import { idempotencyOption, listOptions } from '../shared-options.js';

export const merchantCommands: CommandSpec[] = [
  {
    name: 'merchants create',
    summary: 'create a sub-merchant (asks for missing values on a terminal)',
    options: [
      { flags: '--external-tenant-id <id>', description: 'your own identifier for the tenant' },
      { flags: '--name <name>', description: 'merchant name' },
      { flags: '--email <email>', description: 'contact e-mail' },
      idempotencyOption,
    ],
    examples: ['svc merchants create --external-tenant-id acme --name "Acme Coffee" --email owner@acme.example'],
    load: async () => (await import('./create.js')).createMerchantCommand,
  },
  {
    name: 'merchants get',
    summary: 'show one sub-merchant',
    args: [{ name: 'merchantId', description: 'merchant id' }],
    load: async () => (await import('./get.js')).getMerchantCommand,
  },
  {
    name: 'merchants list',
    summary: 'list sub-merchants, newest first',
    options: listOptions,
    load: async () => (await import('./list.js')).listMerchantsCommand,
  },
  {
    name: 'merchants keys',
    summary: 'issue a new merchant key (local emulator; shown once)',
    args: [{ name: 'merchantId', description: 'merchant id' }],
    load: async () => (await import('./keys.js')).merchantKeysCommand,
  },
];
