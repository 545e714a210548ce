import * as z from 'zod';
import { AMOUNT_PATTERN, isValidAmount, MAX_INTEGER_DIGITS, WIRE_AMOUNT_PATTERN } from '../../domain/money.js';
import { once } from './lazy.js';

/** A decimal string such as "10.00" (CONTRACT §2): a JSON number is refused, not coerced. */
export const amountString = (field: string) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${field} is required.` : `${field} must be a decimal string such as "10.00" (a JSON string, not a ${typeof issue.input}).`,
    })
    .refine(isValidAmount, { error: (issue) => amountProblem(field, String(issue.input)) })
    .meta({
      description: `Decimal amount as a string, greater than zero, at most 6 decimals and ${MAX_INTEGER_DIGITS} integer digits.`,
      pattern: WIRE_AMOUNT_PATTERN.source,
      examples: ['25.00'],
    });

/** Says which rule a refused amount breaks, so that "0" and a 19-digit amount are not told about decimals. */
function amountProblem(field: string, input: string): string {
  if (AMOUNT_PATTERN.test(input)) {
    const dot = input.indexOf('.');
    if ((dot === -1 ? input.length : dot) > MAX_INTEGER_DIGITS) return `${field} must have at most ${MAX_INTEGER_DIGITS} digits before the decimal point.`;
    return `${field} must be greater than zero.`;
  }
  return `${field} must be a positive decimal string with at most 6 decimals, such as "10.00" (no exponent, no leading zeros, no sign).`;
}

export const uuidString = (field: string) => z.guid({ error: (issue) => (issue.input === undefined ? `${field} is required.` : `${field} must be a UUID.`) });

export const boundedString = (field: string, max = 255) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required.` : `${field} must be a string.`) })
    .min(1, { error: `${field} must not be empty.` })
    .max(max, { error: `${field} must be at most ${max} characters.` });

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
