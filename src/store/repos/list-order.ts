import type { SelectQueryBuilder } from 'kysely';
import { param } from '../query.js';
import type { Database } from '../schema.js';

/**
 * The order of every newest-first list (merchants, invoices, deliveries: CONTRACT §3, §12):
 * `created_at` descending, then `id` descending. Equal createdAt is ordered by id on every engine
 * alike, and since ids are v7, monotonic within a millisecond (domain/ids.ts), id descending is the
 * reverse of the order one generator made them in.
 */
export interface ListPage {
  limit: number;
  /** The last item of the previous page: this page holds the rows after it in list order. */
  after?: ListCursor | undefined;
}

/**
 * A keyset: the page holds the rows strictly after (created_at, id) in list order, so a row
 * written meanwhile neither repeats one nor hides one.
 */
export interface ListCursor {
  createdAt: number;
  id: string;
}

type Listed = 'merchants' | 'invoices' | 'deliveries';

/**
 * `q` after the cursor (when `after`), in list order. The same statement on every engine; both
 * read the (scope…, created_at, id) indexes backwards (migrations/0010-list-order.ts).
 */
export function newestFirst<O>(q: SelectQueryBuilder<Database, Listed, O>, after: boolean | undefined): SelectQueryBuilder<Database, Listed, O> {
  const from = after ? q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(param<number>('after_created_at'), param<string>('after_id')))) : q;
  return from.orderBy('created_at', 'desc').orderBy('id', 'desc');
}

/** A list's parameters: the cursor's (absent without one) and the limit, one row more to tell hasMore. */
export function pageArgs(page: ListPage): { after_created_at: number | undefined; after_id: string | undefined; limit: number } {
  return { after_created_at: page.after?.createdAt, after_id: page.after?.id, limit: page.limit + 1 };
}
