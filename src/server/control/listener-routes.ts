import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { INVOICE_EVENT_TYPES } from '../../webhooks/envelope.js';
import { ApiError } from '../api-error.js';
import type { AuthedInput, RouteDef } from '../route.js';

const registerBody = z.object({
  forwardTo: z.string({ error: 'forwardTo must be the URL the listener forwards to.' }).min(1).max(2048),
  events: z
    .array(z.enum(INVOICE_EVENT_TYPES, { error: `events must be event types such as invoice.paid.` }))
    .nullable()
    .optional(),
  timeoutSeconds: z.number().int().min(1).max(300).optional(),
});
const resultBody = z.object({
  requestId: z.string().min(1).max(64),
  status: z.number().int().min(100).max(599).nullable(),
  body: z.string().max(1_000_000).nullable().optional(),
  error: z.string().max(2000).nullable().optional(),
  durationMs: z.number().min(0),
});
// The listener's own forward timeout (`svc webhook listen --timeout`, 1 to 300 s); the hub waits a
// little longer for its report. Bounded, so no value can overflow a timer (1e10 s fired at once).
const streamQuery = z.object({
  timeoutSeconds: z.coerce
    .number({ error: 'timeoutSeconds must be a whole number of seconds from 1 to 300.' })
    .int({ error: 'timeoutSeconds must be a whole number of seconds from 1 to 300.' })
    .min(1, { error: 'timeoutSeconds must be a whole number of seconds from 1 to 300.' })
    .max(300, { error: 'timeoutSeconds must be a whole number of seconds from 1 to 300.' })
    .default(30),
});
const tailQuery = z.object({
  status: z.enum(['pending', 'retrying', 'succeeded', 'failed']).optional(),
  eventType: z.enum(INVOICE_EVENT_TYPES).optional(),
  invoiceId: z.string().optional(),
});

const doc = (summary: string) => ({ summary, tag: 'Emulator control plane', extension: true });

/**
 * CONTRACT §7's listener stream for `svc webhook listen`, and the attempt stream for
 * `svc webhook deliveries tail`. Loopback only, and a partner key says whose deliveries they are.
 */
export const listenerRoutes: RouteDef[] = [
  {
    method: 'PUT',
    path: '/__emulator/listener',
    auth: 'partner',
    control: true,
    body: registerBody,
    doc: { ...doc("Register the partner's listener for the key's environment (an extra delivery target)"), response: { status: 200 } },
    handle: (input: AuthedInput<z.output<typeof registerBody>>, deps) => {
      const { partnerId, environment } = input.principal;
      const row = deps.runtime.listeners.register(partnerId, environment, input.body.forwardTo, input.body.events ?? null);
      return { status: 200, body: { partnerId, environment, secret: row.secret, forwardTo: row.forward_to, events: input.body.events ?? null } };
    },
  },
  {
    method: 'DELETE',
    path: '/__emulator/listener',
    auth: 'partner',
    control: true,
    doc: { ...doc('Unregister the listener: no new deliveries are created for it'), response: { status: 200 } },
    handle: (input: AuthedInput<undefined>, deps) => {
      deps.runtime.listeners.unregister(input.principal.partnerId, input.principal.environment);
      return { status: 200, body: { unregistered: true } };
    },
  },
  {
    method: 'GET',
    path: '/__emulator/listener/secret',
    auth: 'partner',
    control: true,
    doc: { ...doc("The listener's signing secret (stable per partner and environment)"), response: { status: 200 } },
    handle: (input: AuthedInput<undefined>, deps) => ({
      status: 200,
      body: { secret: deps.runtime.listeners.secret(input.principal.partnerId, input.principal.environment) },
    }),
  },
  {
    method: 'GET',
    path: '/__emulator/listener/stream',
    auth: 'partner',
    control: true,
    doc: {
      ...doc('Server-sent events: deliveries to forward (event: delivery)'),
      query: streamQuery,
      response: { status: 200, contentType: 'text/event-stream' },
    },
    handle: (input: AuthedInput<undefined>, deps) => {
      const query = streamQuery.safeParse({ timeoutSeconds: input.query.get('timeoutSeconds') ?? undefined });
      if (!query.success) throw new ApiError(400, 'validation_failed', query.error.issues[0]!.message, 'timeoutSeconds');
      const timeoutMs = query.data.timeoutSeconds * 1000;
      return {
        status: 200,
        stream: (res: ServerResponse) => deps.runtime.listeners.attach(input.principal.partnerId, input.principal.environment, res, timeoutMs),
      };
    },
  },
  {
    method: 'POST',
    path: '/__emulator/listener/results',
    auth: 'partner',
    control: true,
    body: resultBody,
    doc: { ...doc('Report the result of one forwarded delivery'), response: { status: 200 } },
    handle: (input: AuthedInput<z.output<typeof resultBody>>, deps) => {
      const b = input.body;
      const accepted = deps.runtime.listeners.report(
        b.requestId,
        { status: b.status, body: b.body ?? null, error: b.error ?? null, durationMs: b.durationMs },
        input.principal,
      );
      if (!accepted) throw new ApiError(409, 'result_not_expected', 'Nothing waits for this result any more (it came too late, or twice).');
      return { status: 200, body: { accepted: true } };
    },
  },
  {
    method: 'GET',
    path: '/__emulator/deliveries/stream',
    auth: 'partner',
    control: true,
    doc: {
      ...doc("Server-sent events: every attempt of the partner's deliveries as it happens (event: attempt)"),
      response: { status: 200, contentType: 'text/event-stream' },
    },
    handle: (input: AuthedInput<undefined>, deps) => {
      const filter = tailQuery.safeParse(Object.fromEntries(input.query));
      if (!filter.success) throw new ApiError(400, 'validation_failed', filter.error.issues[0]!.message, String(filter.error.issues[0]!.path[0] ?? ''));
      const { partnerId, environment } = input.principal;
      return {
        status: 200,
        stream: (res: ServerResponse) => {
          res.write(`event: ready\ndata: {}\n\n`);
          const off = deps.runtime.subscribe((event) => {
            if (event.type !== 'delivery.result' || event.partnerId !== partnerId || event.environment !== environment) return;
            const f = filter.data;
            if ((f.status && event.status !== f.status) || (f.eventType && event.eventType !== f.eventType) || (f.invoiceId && event.invoiceId !== f.invoiceId))
              return;
            res.write(`event: attempt\ndata: ${JSON.stringify(event)}\n\n`);
          });
          const ping = setInterval(() => res.write(': ping\n\n'), 15_000).unref();
          res.on('close', () => {
            off();
            clearInterval(ping);
          });
        },
      };
    },
  },
];
