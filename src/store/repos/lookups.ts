/**
 * Whether `text` holds U+0000, which PostgreSQL's text cannot (a statement given one fails, SQLSTATE
 * 22021). No stored value holds one (bodies holding one are refused: server/validation/storable-text.ts),
 * so a lookup a request can reach by such a value (a path's id, a cursor) finds nothing without
 * asking, on every engine alike: the 404 of any unknown id, never a 500 (GET /v1/partner/invoices/%00).
 */
export const holdsNul = (text: string): boolean => text.includes('\0');
