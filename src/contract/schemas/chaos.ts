import * as z from 'zod';
import { ENVIRONMENTS } from '../enums.js';
import type { ChaosSpec } from '../testing-types.js';
import type { Equal } from '../type-equal.js';

/** Webhook chaos (CONTRACT §9, extension): the request body and the answer. */

const probability = (name: string) =>
  z
    .number({ error: `${name} must be a probability from 0 to 1.` })
    .min(0, { error: `${name} must be a probability from 0 to 1.` })
    .max(1, { error: `${name} must be a probability from 0 to 1.` });

const DELAY = 'delayMs must be [min, max]: whole milliseconds from 0 to 60000, min not above max.';
const delayMs = () =>
  z
    .tuple(
      [
        z.number({ error: DELAY }).int({ error: DELAY }).min(0, { error: DELAY }).max(60_000, { error: DELAY }),
        z.number({ error: DELAY }).int({ error: DELAY }).min(0, { error: DELAY }).max(60_000, { error: DELAY }),
      ],
      {
        error: DELAY,
      },
    )
    .refine(([min, max]) => min <= max, { error: DELAY });

const fields = () => ({
  duplicate: probability('duplicate').optional().meta({ description: 'Probability that an attempt is sent twice (the same envelope `id`).' }),
  reorder: z
    .boolean({ error: 'reorder must be true or false.' })
    .optional()
    .meta({ description: 'Hold each attempt back up to 1 s, so that deliveries arrive out of order.' }),
  delayMs: delayMs().optional().meta({ description: 'Hold each attempt back between min and max milliseconds.' }),
  badSignature: probability('badSignature').optional().meta({ description: 'Probability that an attempt is signed with a wrong secret.' }),
  staleTimestamp: probability('staleTimestamp').optional().meta({ description: 'Probability that an attempt’s signature timestamp is 6 minutes old.' }),
  seed: z
    .number({ error: 'seed must be a whole number.' })
    .int({ error: 'seed must be a whole number.' })
    .min(0, { error: 'seed must be a whole number.' })
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .meta({ description: 'The same seed and the same events make the same decisions (default 0).' }),
});

/** Thunks: REQUEST_SCHEMAS builds each on first use (./lazy.ts). */
export const CHAOS_REQUESTS = {
  WebhookChaosRequest: () => z.object(fields()).meta({ description: 'Absent fields are off.' }),
};

export const CHAOS_SCHEMAS = {
  WebhookChaos: z
    .object({
      partnerId: z.guid(),
      environment: z.enum(ENVIRONMENTS),
      active: z.boolean().meta({ description: 'false: no chaos is in force (the fields are then absent).' }),
      duplicate: z.number().optional(),
      reorder: z.boolean().optional(),
      delayMs: z.array(z.number().int()).optional(),
      badSignature: z.number().optional(),
      staleTimestamp: z.number().optional(),
      seed: z.number().int().optional(),
    })
    .meta({ id: 'WebhookChaos' }),
};

/** The request schema produces exactly the public ChaosSpec (testing-types.ts): a field added to one only does not compile. */
const specMatches: Equal<z.output<ReturnType<typeof CHAOS_REQUESTS.WebhookChaosRequest>>, ChaosSpec> = true;
void specMatches;
