import type { Handlers } from '../handler.js';

/** CONTRACT §9 webhook chaos, for the key's partner and environment. */
export const chaosHandlers = {
  putWebhookChaos: (input, deps) => {
    const { partnerId, environment } = input.principal;
    const spec = deps.runtime.chaos.set(partnerId, environment, input.body);
    return { status: 200, body: { partnerId, environment, active: true, ...spec } };
  },
  getWebhookChaos: (input, deps) => {
    const { partnerId, environment } = input.principal;
    const spec = deps.runtime.chaos.get(partnerId, environment);
    return { status: 200, body: { partnerId, environment, active: spec !== null, ...spec } };
  },
  deleteWebhookChaos: (input, deps) => {
    deps.runtime.chaos.clear(input.principal.partnerId, input.principal.environment);
    return { status: 204 };
  },
} satisfies Handlers<'putWebhookChaos' | 'getWebhookChaos' | 'deleteWebhookChaos'>;
