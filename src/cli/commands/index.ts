import type { LazyCommand } from '../spec.js';
import { fidelityCommands } from './fidelity.js';
import { chainCommands } from './chain/index.js';
import { fixtureCommands } from './fixtures/index.js';
import { invoiceCommands } from './invoices/index.js';
import { keyCommands } from './keys/index.js';
import { merchantCommands } from './merchants/index.js';
import { faultCommands } from './faults/index.js';
import { logsCommands } from './logs/index.js';
import { snapshotCommands } from './snapshot/index.js';
import { timeCommands } from './time/index.js';
import { topCommands } from './top.js';
import { webhookCommands } from './webhook/index.js';

/** Every command, in the order `svc --help` and docs/cli.md's command reference list them. */
export const ALL_COMMANDS: readonly LazyCommand[] = [
  ...topCommands,
  ...merchantCommands,
  ...invoiceCommands,
  ...webhookCommands,
  ...timeCommands,
  ...snapshotCommands,
  ...logsCommands,
  ...faultCommands,
  ...keyCommands,
  ...fixtureCommands,
  ...fidelityCommands,
  ...chainCommands,
];
