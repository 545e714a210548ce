import type { ServerResponse } from 'node:http';
import { ApiError } from '../api-error.js';
import { sseFrame } from '../../webhooks/sse-frame.js';
import type { Handlers } from '../handler.js';

/**
 * CONTRACT §7's listener stream for `svc webhook listen`, and the attempt stream for
 * `svc webhook deliveries tail`. Loopback only, and a partner key says whose deliveries they are.
 */
export const listenerHandlers = {
  registerListener: async (input, deps) => {
    const { partnerId, environment } = input.principal;
    const events = input.body.events ?? null;
    const row = await deps.runtime.listeners.register(partnerId, environment, input.body.forwardTo, events);
    return { status: 200, body: { partnerId, environment, secret: row.secret, forwardTo: row.forward_to, events } };
  },
  listListeners: async (input, deps) => ({
    status: 200,
    body: { data: await deps.runtime.listeners.list(input.principal.partnerId, input.principal.environment) },
  }),
  unregisterListener: async (input, deps) => {
    await deps.runtime.listeners.unregister(input.principal.partnerId, input.principal.environment);
    return { status: 200, body: { unregistered: true } };
  },
  getListenerSecret: async (input, deps) => ({
    status: 200,
    body: { secret: await deps.runtime.listeners.secret(input.principal.partnerId, input.principal.environment) },
  }),
  streamListener: (input, deps) => {
    const timeoutMs = input.query.timeoutSeconds * 1000;
    const { partnerId, environment } = input.principal;
    return { status: 200, stream: (res: ServerResponse) => deps.runtime.listeners.attach(partnerId, environment, res, timeoutMs) };
  },
  reportListenerResult: async (input, deps) => {
    const b = input.body;
    const accepted = await deps.runtime.listeners.report(
      b.requestId,
      { status: b.status, body: b.body ?? null, error: b.error ?? null, durationMs: b.durationMs },
      input.principal,
    );
    if (!accepted) throw new ApiError(409, 'result_not_expected', 'Nothing waits for this result any more (it came too late, or twice).');
    return { status: 200, body: { accepted: true } };
  },
  streamDeliveryAttempts: (input, deps) => {
    const { partnerId, environment } = input.principal;
    const f = input.query;
    return {
      status: 200,
      stream: (res: ServerResponse) => {
        const writer = deps.runtime.streams.attempts.attach(
          res,
          (event) =>
            event.partnerId === partnerId &&
            event.environment === environment &&
            (!f.status || event.status === f.status) &&
            (!f.eventType || event.eventType === f.eventType) &&
            (!f.invoiceId || event.invoiceId === f.invoiceId),
        );
        writer.send(sseFrame('streamDeliveryAttempts', 'ready', {}));
        writer.heartbeat(15_000);
      },
    };
  },
} satisfies Handlers<
  'registerListener' | 'listListeners' | 'unregisterListener' | 'getListenerSecret' | 'streamListener' | 'reportListenerResult' | 'streamDeliveryAttempts'
>;
