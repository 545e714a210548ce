import { groupOf, type Check } from '../types.js';
import { amountChecks } from './amounts.js';
import { authChecks } from './auth.js';
import { deliveryChecks } from './deliveries.js';
import { environmentChecks } from './environments.js';
import { eventChecks } from './events.js';
import { httpChecks } from './http.js';
import { idempotencyChecks } from './idempotency.js';
import { invoiceChecks } from './invoices.js';
import { lifecycleChecks } from './lifecycle.js';
import { merchantChecks } from './merchants.js';
import { retryChecks } from './retries.js';
import { routeChecks } from './routes.js';
import { signatureChecks } from './signatures.js';
import { secretKeptCheck, webhookChecks } from './webhook-config.js';

/**
 * Every check, in the order they run. The ones that need no receiver come first; then the webhook's
 * rules, deliveries and retries (while few deliveries are in flight), events, and last the checks
 * over every delivery received. docs/fidelity.md's table is checked against this list.
 */
export const CHECKS: Check[] = [
  ...authChecks,
  ...httpChecks,
  ...merchantChecks,
  ...invoiceChecks,
  ...environmentChecks,
  ...amountChecks,
  ...routeChecks,
  ...idempotencyChecks,
  ...lifecycleChecks,
  ...webhookChecks,
  ...secretKeptCheck,
  ...deliveryChecks,
  ...retryChecks,
  ...eventChecks,
  ...signatureChecks,
];

/** The groups, in order (what `--only` takes besides check ids). */
export const GROUPS: string[] = [...new Set(CHECKS.map((c) => groupOf(c.id)))];
