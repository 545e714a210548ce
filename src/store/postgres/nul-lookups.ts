import type { Repos } from '../db.js';

/**
 * Lookups whose values can come from a request (a path's id, a cursor, a tenant id, an API key).
 * PostgreSQL's text cannot hold U+0000: asked for such a value, the server fails the statement
 * (SQLSTATE 22021) and the request was a 500 where SQLite answers 404 (GET /v1/partner/invoices/%00).
 * No stored value holds one, so such a lookup finds nothing without asking; on the pool's batched
 * reads (read-batch.ts) it would also have failed every read sent with it. Bodies holding one are
 * refused before any of this (server/validation/storable-text.ts).
 */
export const LOOKUPS = {
  invoices: ['findInvoice'],
  merchants: ['findMerchant', 'findMerchantIdByTenant'],
  partners: ['findPartner'],
  keys: ['findKey'],
  events: ['findEvent'],
  payments: ['findPayment'],
  deliveries: ['findDelivery'],
} as const satisfies { [R in keyof Repos]?: readonly (keyof Repos[R])[] };

type LookupRepo = keyof typeof LOOKUPS;

const holdsNul = (args: unknown[]) => args.some((arg) => typeof arg === 'string' && arg.includes('\0'));

/** `repos` with the LOOKUPS answering undefined, unasked, for a value holding U+0000. */
export function nulMatchesNothing<T extends Repos>(repos: T): T {
  const out: Record<string, unknown> = { ...repos };
  for (const name of Object.keys(LOOKUPS) as LookupRepo[]) {
    const repo: Record<string, unknown> = { ...repos[name] };
    for (const fn of LOOKUPS[name] as readonly string[]) {
      const call = repo[fn] as (...args: unknown[]) => Promise<unknown>;
      repo[fn] = (...args: unknown[]) => (holdsNul(args) ? Promise.resolve(undefined) : call(...args));
    }
    out[name] = repo;
  }
  return out as T;
}
