import type { Repositories } from '../engine.js';
import * as chains from './chains.js';
import * as deliveries from './deliveries.js';
import * as events from './events.js';
import * as idempotency from './idempotency.js';
import * as invoices from './invoices.js';
import * as keys from './keys.js';
import * as listeners from './listeners.js';
import * as merchants from './merchants.js';
import * as meta from './meta.js';
import * as partners from './partners.js';
import * as payments from './payments.js';
import * as webhookConfigs from './webhook-configs.js';

/** The repositories, written once for every engine: each function takes an engine's Runner first (../engine.ts). */
export const repositories: Repositories = {
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
  chains,
};
