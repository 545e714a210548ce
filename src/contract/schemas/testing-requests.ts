import * as z from 'zod';
import { ENVIRONMENTS } from '../enums.js';
import { listQuery, uuidString } from './common.js';
import { once } from './lazy.js';

/**
 * Requests of the testing tools (CONTRACT §9, extension): the request journal's filters and a
 * fault's definition. Messages are full sentences and `param` names the field, as everywhere.
 */

export const FAULT_LIMITS = { maxDelayMs: 60_000, maxRetryAfter: 86_400, maxTimes: 1_000_000 } as const;

const METHOD = 'method must be an HTTP method such as GET or POST.';
const STATUS = 'status must be an HTTP status from 100 to 599.';
const journalFilters = once(() => ({
  method: z
    .string({ error: METHOD })
    .regex(/^[A-Za-z]{1,16}$/, { error: METHOD })
    .optional()
    .meta({ description: 'Any case.' }),
  path: z
    .string()
    .regex(/^\//, { error: 'path must start with /, e.g. /v1/invoices.' })
    .max(2048)
    .optional()
    .meta({ description: 'A path prefix, e.g. `/v1/invoices`.' }),
  status: z.coerce.number({ error: STATUS }).int({ error: STATUS }).min(100, { error: STATUS }).max(599, { error: STATUS }).optional(),
  invoiceId: uuidString('invoiceId').optional().meta({ description: 'Requests whose path or response body names this invoice.' }),
  fromDashboard: z
    .enum(['true', 'false'], { error: 'fromDashboard must be true or false.' })
    .transform((v) => v === 'true')
    .optional()
    .meta({ description: "`false` leaves out the dashboard's own requests, `true` keeps only them; absent: both." }),
}));

const FAULT_METHOD = 'match.method must be GET, POST, PUT or DELETE.';
export const faultMatch = once(() =>
  z
    .object({
      method: z.enum(['GET', 'POST', 'PUT', 'DELETE'], { error: FAULT_METHOD }).optional(),
      path: z
        .string({ error: 'match.path must be a string such as /v1/invoices.' })
        .regex(/^\/v1\//, { error: 'match.path must be an API path under /v1/, such as /v1/invoices: the control plane cannot be faulted.' })
        .max(2048)
        .optional()
        .meta({ description: 'A route template (`/v1/invoices/{id}`), a concrete path, or a prefix of either, by whole segments.' }),
      environment: z.enum(ENVIRONMENTS, { error: 'match.environment must be test or live.' }).optional(),
    })
    // No component of its own: as a request it refuses unknown keys, as an answer it may not, and one
    // JSON Schema name cannot say both.
    .meta({ description: 'Which requests the fault answers; `{}` matches every `/v1` operation.' }),
);

const ERROR_STATUS = 'action.status must be an HTTP error status from 400 to 599.';
const errorAction = () =>
  z
    .strictObject({
      status: z.number({ error: ERROR_STATUS }).int({ error: ERROR_STATUS }).min(400, { error: ERROR_STATUS }).max(599, { error: ERROR_STATUS }),
      code: z
        .string()
        .regex(/^[a-z][a-z0-9_]{0,63}$/, { error: 'action.code must be lower-case letters, digits and underscores, starting with a letter (at most 64).' })
        .optional()
        .meta({ description: 'The error code answered; default from the status (`service_unavailable` for 503, `internal_error` for 500, …).' }),
      retryAfter: z
        .number()
        .int({ error: 'action.retryAfter must be a whole number of seconds.' })
        .min(0, { error: 'action.retryAfter must be a whole number of seconds.' })
        .max(FAULT_LIMITS.maxRetryAfter, { error: `action.retryAfter must be at most ${FAULT_LIMITS.maxRetryAfter} seconds.` })
        .optional()
        .meta({ description: 'Sent as `Retry-After` (seconds).' }),
    })
    .meta({ id: 'FaultErrorAction', description: 'Answer this error, in the contract’s error shape.' });
const DELAY = `action.delayMs must be a whole number of milliseconds from 1 to ${FAULT_LIMITS.maxDelayMs}.`;
const delayAction = () =>
  z
    .strictObject({ delayMs: z.number({ error: DELAY }).int({ error: DELAY }).min(1, { error: DELAY }).max(FAULT_LIMITS.maxDelayMs, { error: DELAY }) })
    .meta({ id: 'FaultDelayAction', description: 'Hold the answer back this long, then answer as usual.' });
const dropAction = () =>
  z
    .strictObject({ drop: z.literal(true, { error: 'action.drop must be true.' }) })
    .meta({ id: 'FaultDropAction', description: 'Close the connection without an answer.' });

export const faultAction = once(() =>
  z.union([errorAction(), delayAction(), dropAction()], {
    error: 'action must be one of {"status", "code"?, "retryAfter"?}, {"delayMs"} or {"drop": true}.',
  }),
);
export const faultWhen = once(() => z.enum(['before', 'after_commit'], { error: 'when must be before or after_commit.' }));

const TIMES = `times must be a whole number from 1 to ${FAULT_LIMITS.maxTimes}.`;
const createFault = () =>
  z.object({
    match: faultMatch(),
    action: faultAction(),
    when: faultWhen().meta({
      description:
        '`before`: answer instead of running the operation. `after_commit`: run it and let it commit, then answer with the fault (2xx answers only).',
    }),
    times: z
      .number({ error: TIMES })
      .int({ error: TIMES })
      .min(1, { error: TIMES })
      .max(FAULT_LIMITS.maxTimes, { error: TIMES })
      .optional()
      .meta({ description: 'How many requests it applies to; absent: until cleared.' }),
  });

/** Thunks: REQUEST_SCHEMAS builds each on first use (./lazy.ts). */
export const TESTING_REQUESTS = {
  CreateFaultRequest: createFault,
  RequestJournalQuery: () => listQuery().extend(journalFilters()),
  RequestStreamQuery: () => z.object(journalFilters()),
};
