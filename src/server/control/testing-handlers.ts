import type { ServerResponse } from 'node:http';
import { ApiError } from '../api-error.js';
import { presentFault } from '../faults/table.js';
import { sseFrame } from '../../webhooks/sse-frame.js';
import type { Handlers } from '../handler.js';
import { matcher } from '../journal/journal.js';

/**
 * CONTRACT §9's request journal and API faults over the control plane; the in-process API
 * (`emulator.requests()`, `emulator.faults`) reads the same journal and fault table.
 */
export const testingHandlers = {
  // On PostgreSQL the journal is a table every replica shares (./journal/shared-journal.ts): awaited.
  listRequests: async (input, deps) => {
    const { limit, startingAfter, ...filter } = input.query;
    const page = await deps.journal.page({ ...filter, limit, startingAfter });
    if (!page) {
      throw new ApiError(
        400,
        'validation_failed',
        `startingAfter ${startingAfter} is not an entry of this journal (with these filters); it may have been evicted or cleared.`,
        'startingAfter',
      );
    }
    return { status: 200, body: page };
  },
  clearRequests: async (_input, deps) => ({ status: 200, body: { deleted: await deps.journal.clear() } }),
  streamRequests: (input, deps) => {
    const test = matcher(input.query);
    return {
      status: 200,
      stream: (res: ServerResponse) => {
        const writer = deps.runtime.streams.requests.attach(res, test);
        writer.send(sseFrame('streamRequests', 'ready', {}));
        writer.heartbeat(15_000);
      },
    };
  },
  getRequest: async (input, deps) => {
    const entry = await deps.journal.get(input.params.requestId);
    if (!entry) {
      throw new ApiError(
        404,
        'request_not_found',
        `The request journal has no entry ${input.params.requestId}: only API requests (/v1/…) are kept, the last ${deps.journal.capacity} of them, until cleared.`,
      );
    }
    return { status: 200, body: entry };
  },
  // Each change answers once stored: on PostgreSQL the next request may reach another replica (CONTRACT §12).
  createFault: async (input, deps) => {
    const fault = deps.faults.add(input.body);
    await deps.faults.settled();
    return { status: 201, body: presentFault(fault) };
  },
  listFaults: (_input, deps) => ({ status: 200, body: { data: deps.faults.list().map(presentFault) } }),
  clearFaults: async (_input, deps) => {
    const deleted = deps.faults.clear();
    await deps.faults.settled();
    return { status: 200, body: { deleted } };
  },
  deleteFault: async (input, deps) => {
    if (deps.faults.clear(input.params.id) === 0) throw new ApiError(404, 'fault_not_found', `No fault ${input.params.id} is in force (cleared, or used up).`);
    await deps.faults.settled();
    return { status: 204 };
  },
} satisfies Handlers<'listRequests' | 'getRequest' | 'clearRequests' | 'streamRequests' | 'createFault' | 'listFaults' | 'clearFaults' | 'deleteFault'>;
