import type { OperationSpec } from '../operation.js';
import { chainOperations } from './chains.js';
import { chaosOperations } from './chaos.js';
import { controlOperations } from './control.js';
import { dashboardOperations } from './dashboard.js';
import { invoiceOperations } from './invoices.js';
import { listenerOperations } from './listener.js';
import { merchantOperations } from './merchants.js';
import { snapshotOperations } from './snapshots.js';
import { testHelperOperations } from './test-helpers.js';
import { testingOperations } from './testing.js';
import { webhookOperations } from './webhook.js';

/** Every operation the emulator serves, keyed by operation id, in the order the document lists them. */
export const OPERATIONS = {
  ...merchantOperations,
  ...invoiceOperations,
  ...webhookOperations,
  ...testHelperOperations,
  ...controlOperations,
  ...listenerOperations,
  ...testingOperations,

  ...snapshotOperations,
  ...chaosOperations,
  ...dashboardOperations,
  ...chainOperations,
};

export type Operations = typeof OPERATIONS;
export type OperationId = keyof Operations;

/** `[id, operation]` pairs, in document order. */
export function operationEntries(): [OperationId, OperationSpec][] {
  return operationIds().map((id) => [id, OPERATIONS[id]]);
}

/** Whether a string names an operation (`Object.keys` gives plain strings). */
export const isOperationId = (value: string): value is OperationId => Object.hasOwn(OPERATIONS, value);

/** Every operation's id, in document order. */
export const operationIds = (): OperationId[] => Object.keys(OPERATIONS).filter(isOperationId);
