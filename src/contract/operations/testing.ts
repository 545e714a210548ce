import { defineOperations } from '../operation.js';

const control = { tag: 'Emulator control plane', control: true, extension: true, auth: 'none' } as const;

/**
 * CONTRACT §9's request journal and API faults: loopback-only like the rest of the control plane,
 * no API key (the journal spans every partner; the emulator's own operator is asking).
 */
export const testingOperations = defineOperations({
  listRequests: {
    ...control,
    method: 'GET',
    path: '/__emulator/requests',
    summary: 'The API requests the emulator answered, newest first (the request journal)',
    description:
      'Only `/v1/…` requests are kept (not the control plane, pages or the document), in a ring of `journalSize` entries (default 1,000). Bodies are kept up to 16 KiB each; keys appear as their prefix and last four characters.',
    query: 'RequestJournalQuery',
    responses: { 200: 'RequestJournal' },
  },
  clearRequests: {
    ...control,
    method: 'DELETE',
    path: '/__emulator/requests',
    summary: 'Empty the request journal',
    responses: { 200: 'RequestJournalCleared' },
  },
  streamRequests: {
    ...control,
    method: 'GET',
    path: '/__emulator/requests/stream',
    summary: 'Each API request as it is answered, as server-sent events (`svc logs tail`)',
    query: 'RequestStreamQuery',
    responses: {
      200: { stream: true, description: 'Server-sent events: `event: ready` once, then `event: request` with a JournalEntry per request answered.' },
    },
  },
  // `/__emulator/requests/stream` matches this template too: the router prefers the literal segment.
  getRequest: {
    ...control,
    method: 'GET',
    path: '/__emulator/requests/{requestId}',
    summary: 'One entry of the request journal, by the `Request-Id` its answer carried',
    description:
      'The entry `listRequests` would show for that request. 404 `request_not_found` when the journal has none: not an API request (`/v1/…`), rotated out of the ring, or cleared.',
    responses: { 200: 'JournalEntry' },
    errors: ['request_not_found'],
  },
  createFault: {
    ...control,
    method: 'POST',
    path: '/__emulator/faults',
    summary: 'Make matching API requests fail: an error, a delay or a dropped connection, before the operation or after it committed',
    description:
      'A faulted answer carries `Svc-Fault: <id>`. Faults apply to `/v1` operations only, after the key is checked; the first fault added that matches a request applies to it.',
    body: 'CreateFaultRequest',
    responses: { 201: 'Fault' },
  },
  listFaults: { ...control, method: 'GET', path: '/__emulator/faults', summary: 'The faults in force, oldest first', responses: { 200: 'FaultList' } },
  clearFaults: { ...control, method: 'DELETE', path: '/__emulator/faults', summary: 'Remove every fault', responses: { 200: 'FaultsCleared' } },
  deleteFault: {
    ...control,
    method: 'DELETE',
    path: '/__emulator/faults/{id}',
    summary: 'Remove one fault',
    responses: { 204: { description: 'Removed.' } },
    errors: ['fault_not_found'],
  },
});
