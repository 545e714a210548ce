import type { Handlers } from '../handler.js';

/** CONTRACT §9 webhook chaos, for the key's partner and environment. */
export const chaosHandlers = {
  // set and clear answer once stored: on PostgreSQL the next request may reach another replica (CONTRACT §12).
  putWebhookChaos: async (input, deps) => {
    const { partnerId, environment } = input.principal;
    const spec = deps.runtime.chaos.set(partnerId, environment, input.body);
    await deps.runtime.chaos.settled();
    return { status: 200, body: { partnerId, environment, active: true, ...spec } };
  },
  getWebhookChaos: (input, deps) => {
    const { partnerId, environment } = input.principal;
    const spec = deps.runtime.chaos.get(partnerId, environment);
    return { status: 200, body: { partnerId, environment, active: spec !== null, ...spec } };
  },
  deleteWebhookChaos: async (input, deps) => {
    deps.runtime.chaos.clear(input.principal.partnerId, input.principal.environment);
    await deps.runtime.chaos.settled();
    return { status: 204 };
  },
} satisfies Handlers<'putWebhookChaos' | 'getWebhookChaos' | 'deleteWebhookChaos'>;
