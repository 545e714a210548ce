import * as z from 'zod';

/** The checkout page's test panel posts this (pay in full, in part, over, unconfirmed, confirm). */
export const checkoutTestBody = z.object({
  networkId: z.number().int().optional(),
  token: z.string().max(32).optional(),
  paymentId: z.string().max(64).optional(),
});
export type CheckoutTestBody = z.output<typeof checkoutTestBody>;
