import { defineOperations } from '../operation.js';

const control = { tag: 'Emulator control plane', control: true, extension: true, auth: 'partner' } as const;

/**
 * CONTRACT §7's listener stream for `svc webhook listen`, and the attempt stream for
 * `svc webhook deliveries tail`. Loopback only, and a partner key says whose deliveries they are.
 */
export const listenerOperations = defineOperations({
  registerListener: {
    ...control,
    method: 'PUT',
    path: '/__emulator/listener',
    summary: "Register the partner's listener for the key's environment (an extra delivery target)",
    body: 'RegisterListenerRequest',
    responses: { 200: 'Listener' },
  },
  listListeners: {
    ...control,
    method: 'GET',
    path: '/__emulator/listeners',
    summary: "The partner's registered listeners in the key's environment, connected or within their reconnect window",
    responses: { 200: 'ListenerList' },
  },
  unregisterListener: {
    ...control,
    method: 'DELETE',
    path: '/__emulator/listener',
    summary: 'Unregister the listener: no new deliveries are created for it, and those still waiting end failed',
    responses: { 200: 'ListenerUnregistered' },
  },
  getListenerSecret: {
    ...control,
    method: 'GET',
    path: '/__emulator/listener/secret',
    summary: "The listener's signing secret (stable per partner and environment)",
    responses: { 200: 'ListenerSecret' },
  },
  streamListener: {
    ...control,
    method: 'GET',
    path: '/__emulator/listener/stream',
    summary: 'Deliveries to forward, as server-sent events',
    query: 'ListenerStreamQuery',
    responses: {
      200: {
        stream: true,
        description:
          'Server-sent events: `event: ready` once with `{partnerId, environment}`, then `event: delivery` with `{requestId, deliveryId, eventId, eventType, attempt, headers, body}` to forward and report.',
      },
    },
  },
  reportListenerResult: {
    ...control,
    method: 'POST',
    path: '/__emulator/listener/results',
    summary: 'Report the result of one forwarded delivery',
    body: 'ListenerResultRequest',
    responses: { 200: 'ListenerResultAccepted' },
    errors: ['result_not_expected'],
  },
  streamDeliveryAttempts: {
    ...control,
    method: 'GET',
    path: '/__emulator/deliveries/stream',
    summary: "Every attempt of the partner's deliveries as it happens, as server-sent events",
    query: 'DeliveryStreamQuery',
    responses: {
      200: { stream: true, description: 'Server-sent events: `event: ready` once, then `event: attempt` with a delivery.result event per attempt.' },
    },
  },
});
