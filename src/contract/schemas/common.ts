import * as z from 'zod';
import { isValidAmount, MAX_INTEGER_DIGITS, wireAmountPattern } from '../../domain/money.js';
import { amountNotAString, amountProblem, emptyString, notAString, notAUuid, requiredOr, tooLong } from './messages.js';
import { once } from './lazy.js';

/** A decimal string such as "10.00" (CONTRACT §2): a JSON number is refused, not coerced. */
export const amountString = (field: string) =>
  z
    .string({ error: (issue) => requiredOr(field, issue.input, amountNotAString(field, issue.input)) })
    .refine(isValidAmount, { error: (issue) => amountProblem(field, String(issue.input)) })
    .meta({
      description: `Decimal amount as a string, greater than zero, at most 6 decimals and ${MAX_INTEGER_DIGITS} integer digits.`,
      pattern: wireAmountPattern().source,
      examples: ['25.00'],
    });

export const uuidString = (field: string) => z.guid({ error: (issue) => requiredOr(field, issue.input, notAUuid(field)) });

export const boundedString = (field: string, max = 255) =>
  z
    .string({ error: (issue) => requiredOr(field, issue.input, notAString(field)) })
    .min(1, { error: emptyString(field) })
    .max(max, { error: tooLong(field, max) });

export const listQuery = once(() =>
  z.object({
    limit: z.coerce
      .number({ error: 'limit must be a whole number from 1 to 100.' })
      .int({ error: 'limit must be a whole number from 1 to 100.' })
      .min(1, { error: 'limit must be a whole number from 1 to 100.' })
      .max(100, { error: 'limit must be a whole number from 1 to 100.' })
      .default(20),
    startingAfter: z.string().min(1).max(255).optional().meta({ description: 'Id of the last item of the previous page.' }),
  }),
);
