import { AMOUNT_PATTERN, MAX_INTEGER_DIGITS } from '../../domain/money.js';

/**
 * The messages of the request fields every create shares (CONTRACT §2), said once: the zod schemas
 * (./common.ts, ./requests.ts) and the zod-free validators of the invoice creates
 * (src/server/validation/invoice-bodies.ts) both answer with them. No zod here.
 */

/** A required field left out, or given as something else (`otherwise`). */
export const requiredOr = (field: string, input: unknown, otherwise: string): string => (input === undefined ? `${field} is required.` : otherwise);

export const notAString = (field: string): string => `${field} must be a string.`;
export const emptyString = (field: string): string => `${field} must not be empty.`;
export const tooLong = (field: string, max: number): string => `${field} must be at most ${max} characters.`;
export const notAUuid = (field: string): string => `${field} must be a UUID.`;

/** An amount that is not a JSON string. */
export const amountNotAString = (field: string, input: unknown): string =>
  `${field} must be a decimal string such as "10.00" (a JSON string, not a ${typeof input}).`;

/** Says which rule a refused amount breaks, so that "0" and a 19-digit amount are not told about decimals. */
export function amountProblem(field: string, input: string): string {
  if (AMOUNT_PATTERN.test(input)) {
    const dot = input.indexOf('.');
    if ((dot === -1 ? input.length : dot) > MAX_INTEGER_DIGITS) return `${field} must have at most ${MAX_INTEGER_DIGITS} digits before the decimal point.`;
    return `${field} must be greater than zero.`;
  }
  return `${field} must be a positive decimal string with at most 6 decimals, such as "10.00" (no exponent, no leading zeros, no sign).`;
}

/** The payment route an invoice may be locked to (`networkId`, `token`). */
export const NETWORK_ID_MESSAGE = 'networkId must be an integer network id such as 84532.';
export const TOKEN_MESSAGE = 'token must be a token symbol such as "USDC".';
export const TOKEN_MAX_LENGTH = 32;
