import { isUuid } from '../../domain/ids.js';
import { isValidAmount } from '../../domain/money.js';
import {
  amountNotAString,
  amountProblem,
  emptyString,
  NETWORK_ID_MESSAGE,
  notAString,
  notAUuid,
  requiredOr,
  TOKEN_MAX_LENGTH,
  TOKEN_MESSAGE,
  tooLong,
} from '../../contract/schemas/messages.js';
import type { Issue, Validator } from './parse.js';

/**
 * The bodies of the invoice creates, validated without zod: the create is the first request of
 * nearly every suite, and loading zod for it was a third of an in-process start's own time (bench
 * #13; docs/performance.md). Each answers exactly as its zod schema in contract/schemas/requests.ts
 * does (the same first issue, the same output), which is what the OpenAPI document describes and
 * what test/unit/invoice-bodies.test.ts holds them to, on many inputs. A change to one of those
 * schemas is a change here too; the messages themselves are shared (contract/schemas/messages.ts).
 */

/** A body validated without zod; `shape` names its fields, as a zod object's does (unknown fields get a `Warning`). */
export type ZodFreeBody = Validator<Record<string, unknown>> & { readonly shape: Readonly<Record<string, unknown>> };

/** A field's check: null when the value passes, else its issue's code and message. */
type Check = (value: unknown) => { code: string; message: string } | null;

const wrongType = (message: string) => ({ code: 'invalid_type', message });

/** Whether a string has more than `max` characters, counted as zod counts them: in code points (a surrogate pair is one). */
function longerThan(s: string, max: number): boolean {
  if (s.length <= max) return false;
  let points = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      points--;
      i++;
    }
  }
  return points > max;
}

const uuid =
  (field: string): Check =>
  (v) =>
    typeof v !== 'string' ? wrongType(requiredOr(field, v, notAUuid(field))) : isUuid(v) ? null : { code: 'invalid_format', message: notAUuid(field) };

const amount =
  (field: string): Check =>
  (v) =>
    typeof v !== 'string'
      ? wrongType(requiredOr(field, v, amountNotAString(field, v)))
      : isValidAmount(v)
        ? null
        : { code: 'custom', message: amountProblem(field, v) };

const boundedString =
  (field: string, max = 255): Check =>
  (v) =>
    typeof v !== 'string'
      ? wrongType(requiredOr(field, v, notAString(field)))
      : v.length < 1
        ? { code: 'too_small', message: emptyString(field) }
        : longerThan(v, max)
          ? { code: 'too_big', message: tooLong(field, max) }
          : null;

/** zod's `number().int().positive()`: the codes as zod's (only `invalid_type` tells a missing field), one message. */
const networkId: Check = (v) =>
  typeof v !== 'number' || !Number.isFinite(v) || !Number.isInteger(v)
    ? wrongType(NETWORK_ID_MESSAGE)
    : !Number.isSafeInteger(v)
      ? { code: v > 0 ? 'too_big' : 'too_small', message: NETWORK_ID_MESSAGE }
      : v > 0
        ? null
        : { code: 'too_small', message: NETWORK_ID_MESSAGE };

const token: Check = (v) =>
  typeof v !== 'string'
    ? wrongType(TOKEN_MESSAGE)
    : v.length < 1
      ? { code: 'too_small', message: TOKEN_MESSAGE }
      : longerThan(v, TOKEN_MAX_LENGTH)
        ? { code: 'too_big', message: TOKEN_MESSAGE }
        : null;

/** Leaves an absent field alone, as zod's `.optional()`. */
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined ? null : check(v);

/** zod's message for a body that is not an object (never reaches here from HTTP: the body stage answers 400 invalid_json first). */
const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * An object of `checks`, as `z.object(shape)`: every field checked in order (the first issue is the
 * one answered), unknown fields dropped, the known ones copied in the shape's order.
 */
function objectOf(checks: Record<string, Check>): ZodFreeBody {
  const fields = Object.entries(checks);
  return {
    shape: checks,
    safeParse(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return {
          success: false,
          error: { issues: [{ code: 'invalid_type', path: [], message: `Invalid input: expected object, received ${kindOf(value)}` }] },
        };
      }
      const issues: Issue[] = [];
      const data: Record<string, unknown> = {};
      for (const [field, check] of fields) {
        const v: unknown = Reflect.get(value, field);
        const problem = check(v);
        if (problem) issues.push({ ...problem, path: [field] });
        else if (v !== undefined || field in value) data[field] = v;
      }
      return issues.length > 0 ? { success: false, error: { issues } } : { success: true, data };
    },
  };
}

const routeLock = { networkId: optional(networkId), token: optional(token) };

/**
 * By the name of their zod schema in REQUEST_SCHEMAS. Handlers are typed from the contract (their
 * operation's body), not from here: that what these return is that type is the zod schema's
 * equality with the contract, and these validators' with the zod schema (the test above).
 */
export const INVOICE_BODIES = {
  CreateInvoiceRequest: objectOf({
    amount: amount('amount'),
    referenceId: optional(boundedString('referenceId')),
    ...routeLock,
  }),
  CreatePartnerInvoiceRequest: objectOf({
    merchantId: uuid('merchantId'),
    amount: amount('amount'),
    referenceId: optional(boundedString('referenceId')),
    ...routeLock,
  }),
};

export type ZodFreeBodyName = keyof typeof INVOICE_BODIES;
export const isZodFreeBody = (name: string): name is ZodFreeBodyName => Object.hasOwn(INVOICE_BODIES, name);
