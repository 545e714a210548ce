import type { IncomingMessage } from 'node:http';
import type * as z from 'zod';
import { REQUEST_SCHEMAS } from '../../contract/schemas/requests.js';
import { ApiError } from '../../server/api-error.js';
import { parseWith } from '../../server/validation/parse.js';
import { operationFinder } from '../contract/operations.js';
import type { ProxyJournal } from './proxy-journal.js';

const find = operationFinder();

/**
 * The proxy's journal routes, as the emulator's control plane serves them (`listRequests`,
 * `getRequest`, `clearRequests`: the same paths, filters and pages): the answer, an ApiError, or
 * null for a path the proxy does not serve.
 */
export function journalAnswer(journal: ProxyJournal, req: IncomingMessage, path: string, target: string): { status: number; body: unknown } | ApiError | null {
  const found = find(req.method ?? 'GET', path);
  if (!found || !('id' in found)) return null;
  if (found.id === 'listRequests') {
    const params = Object.fromEntries(new URL(target, 'http://proxy.invalid').searchParams);
    let query: z.output<typeof REQUEST_SCHEMAS.RequestJournalQuery>;
    try {
      query = parseWith(REQUEST_SCHEMAS.RequestJournalQuery, params);
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
    const page = journal.page(query);
    if (!page)
      return new ApiError(
        400,
        'validation_failed',
        `startingAfter ${query.startingAfter} is not an entry of this journal (with these filters).`,
        'startingAfter',
      );
    return { status: 200, body: page };
  }
  if (found.id === 'getRequest') {
    const entry = journal.get(found.params.requestId ?? '');
    return entry ? { status: 200, body: entry } : new ApiError(404, 'request_not_found', `svc proxy's journal has no entry ${found.params.requestId}.`);
  }
  if (found.id === 'clearRequests') return { status: 200, body: { deleted: journal.clear() } };
  return null;
}
