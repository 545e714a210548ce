import type { Repositories } from '../../engine.js';
import * as deliveries from './deliveries.js';
import * as events from './events.js';
import type { PgHandle } from './handle.js';
import * as idempotency from './idempotency.js';
import * as invoices from './invoices.js';
import * as keys from './keys.js';
import * as listeners from './listeners.js';
import * as merchants from './merchants.js';
import * as meta from './meta.js';
import * as partners from './partners.js';
import * as payments from './payments.js';
import * as webhookConfigs from './webhook-configs.js';

/**
 * PostgreSQL's repositories, checked against the interface both engines implement (engine.ts): a
 * function SQLite's repos have and these lack, or with other arguments or rows, does not compile.
 */
export const postgresRepositories: Repositories<PgHandle> = {
  invoices,
  merchants,
  partners,
  keys,
  events,
  payments,
  deliveries,
  idempotency,
  webhookConfigs,
  listeners,
  meta,
};
