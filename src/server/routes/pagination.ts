import { ApiError } from '../api-error.js';
import type { ListCursor } from '../../store/repos/list-order.js';

/** `{data, hasMore}` from a query that fetched one row more than the limit. */
export function page<Row, Item>(rows: Row[], limit: number, present: (row: Row) => Item) {
  return { data: rows.slice(0, limit).map(present), hasMore: rows.length > limit };
}

/**
 * The cursor of `startingAfter`: the (createdAt, id) of an item the caller can see, after which the
 * page starts in list order (store/repos/list-order.ts), or a 400 naming the param.
 */
export async function cursorOf(
  startingAfter: string | undefined,
  find: (id: string) => Promise<{ created_at: number; id: string } | undefined>,
): Promise<ListCursor | undefined> {
  if (startingAfter === undefined) return undefined;
  const row = await find(startingAfter);
  if (!row) {
    throw new ApiError(400, 'validation_failed', `startingAfter ${startingAfter} is not an item of this list.`, 'startingAfter');
  }
  return { createdAt: row.created_at, id: row.id };
}
