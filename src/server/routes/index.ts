import type { OperationId } from '../../contract/operations/index.js';
import { controlHandlers } from '../control/handlers.js';
import { listenerHandlers } from '../control/listener-handlers.js';
import { chaosHandlers } from '../control/chaos-handlers.js';
import { chainHandlers } from '../control/chain-handlers.js';
import { dashboardHandlers } from '../control/dashboard-handlers.js';
import { snapshotHandlers } from '../control/snapshot-handlers.js';
import { testingHandlers } from '../control/testing-handlers.js';
import { type Handlers, operationRoutes } from '../handler.js';
import type { RouteDef } from '../route.js';
import { invoiceHandlers } from './invoices.js';
import { merchantHandlers } from './merchants.js';
import { checkoutWalletRoutes } from './checkout-wallet.js';
import { pageRoutes } from './pages.js';
import { testHelperHandlers } from './test-helpers.js';
import { webhookHandlers } from './webhook.js';

/**
 * A handler for every operation of the contract: one missing is a compile error. Read at each
 * emulator's start; the response checker's own test swaps an entry to prove it catches drift.
 */
export const HANDLERS: Handlers<OperationId> = {
  ...merchantHandlers,
  ...invoiceHandlers,
  ...webhookHandlers,
  ...testHelperHandlers,
  ...controlHandlers,
  ...listenerHandlers,
  ...snapshotHandlers,
  ...testingHandlers,
  ...chaosHandlers,
  ...dashboardHandlers,
  ...chainHandlers,
};

/** Every route the emulator serves: the contract's operations, then the pages. */
export function apiRoutes(): RouteDef[] {
  return [...operationRoutes(HANDLERS), ...checkoutWalletRoutes, ...pageRoutes];
}
