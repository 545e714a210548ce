import { ApiError } from '../api-error.js';

/** `{data, hasMore}` from a query that fetched one row more than the limit. */
export function page<Row, Item>(rows: Row[], limit: number, present: (row: Row) => Item) {
  return { data: rows.slice(0, limit).map(present), hasMore: rows.length > limit };
}

/** The cursor of `startingAfter`: the seq of an item the caller can see, or a 400 naming the param. */
export async function cursorOf(startingAfter: string | undefined, find: (id: string) => Promise<{ seq: number } | undefined>): Promise<number | undefined> {
  if (startingAfter === undefined) return undefined;
  const row = await find(startingAfter);
  if (!row) {
    throw new ApiError(400, 'validation_failed', `startingAfter ${startingAfter} is not an item of this list.`, 'startingAfter');
  }
  return row.seq;
}
