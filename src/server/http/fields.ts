import type * as z from 'zod';
import { ApiError } from '../api-error.js';
import type { ZodFreeBody } from '../validation/invoice-bodies.js';

/**
 * CONTRACT §2: `environment` is never accepted in a body (it comes from the key), and a field whose
 * name contains "fee" is refused in create-merchant. Both are checked before the rest of the body.
 * Fee fields are looked for at any depth, so `{"settings":{"feeRate":1}}` cannot slip through;
 * `environment` only at the top, where it would mean the request's environment.
 */
export function checkForbiddenFields(body: Record<string, unknown>, rejectFees: boolean): void {
  if (Object.hasOwn(body, 'environment')) {
    throw new ApiError(400, 'environment_not_allowed', 'Do not send environment: it is taken from the API key.', 'environment');
  }
  if (!rejectFees) return;
  walk(body, '', (key, path) => {
    if (/fee/i.test(key)) {
      throw new ApiError(400, 'fee_fields_not_allowed', `Fee fields are not accepted when creating a merchant (${path}).`, path);
    }
  });
}

function walk(value: unknown, prefix: string, visit: (key: string, path: string) => void): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      walk(item, `${prefix}[${i}]`, visit);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${key}` : key;
      visit(key, path);
      walk(child, path, visit);
    }
  }
}

/** Top-level body keys the schema does not declare: ignored, but reported (CONTRACT §2). */
export function unknownFieldsOf(schema: z.ZodType | ZodFreeBody, body: Record<string, unknown>): string[] {
  // By the schema's kind, not `instanceof`: this module must not load zod (../validation/schemas.ts).
  if (('_zod' in schema && schema._zod.def.type !== 'object') || !('shape' in schema)) return [];
  const shape = schema.shape;
  if (typeof shape !== 'object' || shape === null) return [];
  return Object.keys(body).filter((k) => !Object.hasOwn(shape, k));
}
