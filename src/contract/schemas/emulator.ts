import * as z from 'zod';
import type { DefaultKeys } from '../default-keys.js';
import { ENVIRONMENTS, INVOICE_EVENT_TYPES } from '../enums.js';
import type { Equal } from '../type-equal.js';

/** The control plane's answers (CONTRACT §7, extension): documented, checked, never built by the server. */

const environment = z.enum(ENVIRONMENTS);
const partnerKey = z.string().meta({ pattern: '^pt_(test|live)_[0-9A-Za-z]{32}$' });
const merchantKey = z.string().meta({ pattern: '^(test|live)_[0-9A-Za-z]{32}$' });

export const health = z
  .object({
    status: z.enum(['ok', 'degraded']),
    reason: z.string().optional().meta({ description: 'Why writes cannot be stored (degraded only).' }),
    version: z.string(),
    now: z.iso.datetime().meta({ description: 'Emulator time.' }),
    baseUrl: z.url(),
    pid: z.number().int().optional().meta({ description: "The emulator process's id (a second `svc dev` on its port names it)." }),
    folder: z
      .string()
      .optional()
      .meta({ description: "The emulator process's working folder, where `svc dev` keeps `.svc/` (a second `svc dev` on its port names it)." }),
  })
  .meta({ id: 'Health' });

const environmentKeys = z.object({ partnerKey, merchantKey, merchantId: z.guid() }).meta({ id: 'EnvironmentKeys' });
export const defaultKeys = z.object({ partnerId: z.guid(), test: environmentKeys, live: environmentKeys }).meta({ id: 'DefaultKeys' });

export const clock = z
  .object({
    now: z.iso.datetime(),
    offsetSeconds: z.number().int().meta({
      description: 'How far the emulator clock is ahead of wall-clock time; for a frozen clock (--clock-start), how far it was advanced from its start.',
    }),
  })
  .meta({ id: 'Clock' });

export const CONTROL_SCHEMAS = {
  Health: health,
  ResetResult: z.object({ status: z.literal('reset'), keys: defaultKeys }).meta({ id: 'ResetResult' }),
  Clock: clock,
  ClockAdvance: clock
    .extend({
      advancedSeconds: z.number(),
      expired: z.number().int().meta({ description: 'Invoices that expired on the way.' }),
      deliveryAttempts: z.number().int().meta({ description: 'Delivery attempts that fell due and were made.' }),
    })
    .meta({ id: 'ClockAdvance' }),
  DefaultKeys: defaultKeys,
  NewPartner: z
    .object({ partnerId: z.guid(), name: z.string(), test: z.object({ partnerKey }), live: z.object({ partnerKey }) })
    .meta({ id: 'NewPartner', description: 'The keys are shown once.' }),
  NewMerchantKey: z.object({ merchantId: z.guid(), environment, merchantKey }).meta({ id: 'NewMerchantKey', description: 'The key is shown once.' }),
  MerchantChains: z
    .object({
      merchantId: z.guid(),
      environment,
      networkIds: z.array(z.number().int()).nullable().meta({ description: 'null: every chain of the environment.' }),
    })
    .meta({ id: 'MerchantChains' }),
  Listener: z
    .object({ partnerId: z.guid(), environment, secret: z.string(), forwardTo: z.string(), events: z.array(z.enum(INVOICE_EVENT_TYPES)).nullable() })
    .meta({ id: 'Listener' }),
  ListenerUnregistered: z.object({ unregistered: z.literal(true) }).meta({ id: 'ListenerUnregistered' }),
  ListenerList: z
    .object({
      data: z.array(
        z
          .object({
            id: z.string().meta({ description: 'The listener of a partner and environment: its environment (`test` or `live`).' }),
            environment,
            forwardTo: z.string(),
            events: z.array(z.enum(INVOICE_EVENT_TYPES)).nullable(),
            connected: z.boolean().meta({ description: 'Whether a `svc webhook listen` holds its stream now.' }),
            removeAt: z.iso
              .datetime()
              .nullable()
              .meta({ description: 'Emulator time its reconnect window ends and it is removed, unless a listen connects; null while connected.' }),
            updatedAt: z.iso.datetime(),
          })
          .meta({ id: 'ListenerInfo' }),
      ),
    })
    .meta({ id: 'ListenerList', description: "The partner's registered listeners in the key's environment (at most one)." }),
  ListenerSecret: z.object({ secret: z.string() }).meta({ id: 'ListenerSecret' }),
  ListenerResultAccepted: z.object({ accepted: z.literal(true) }).meta({ id: 'ListenerResultAccepted' }),
};

/** The schema produces exactly the public DefaultKeys (default-keys.ts): a field added to one only does not compile. */
const keysMatch: Equal<z.output<typeof defaultKeys>, DefaultKeys> = true;
void keysMatch;
