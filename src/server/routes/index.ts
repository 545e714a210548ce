import { listenerRoutes } from '../control/listener-routes.js';
import { controlRoutes } from '../control/routes.js';
import type { RouteDef } from '../route.js';
import { deliveryRoutes } from './deliveries.js';
import { invoiceRoutes } from './invoices.js';
import { merchantRoutes } from './merchants.js';
import { pageRoutes } from './pages.js';
import { testHelperRoutes } from './test-helpers.js';
import { webhookRoutes } from './webhook.js';

/** Every route the emulator serves, in the order the OpenAPI document lists them. */
export function apiRoutes(): RouteDef[] {
  return [...merchantRoutes, ...invoiceRoutes, ...webhookRoutes, ...deliveryRoutes, ...testHelperRoutes, ...controlRoutes, ...listenerRoutes, ...pageRoutes];
}
