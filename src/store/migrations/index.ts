import type { Migration } from 'kysely';

/**
 * Registered statically rather than read from a folder: the build output and bundlers then
 * cannot lose a migration, and the order is the order written here. Each is loaded only to run it
 * through kysely (the sources, tests): dist/ runs the SQL the build compiled from them
 * (`../compile.ts`), so starting the package loads neither them nor kysely.
 */
export const migrations: Record<string, () => Promise<Migration>> = {
  '0001-initial': () => import('./0001-initial.js'),
  '0002-lifecycle': () => import('./0002-lifecycle.js'),
  '0003-listeners': () => import('./0003-listeners.js'),
  '0004-trim-indexes': () => import('./0004-trim-indexes.js'),
  '0005-due-index-url': () => import('./0005-due-index-url.js'),
  '0006-application-id': () => import('./0006-application-id.js'),
  '0007-attempt-chaos': () => import('./0007-attempt-chaos.js'),
  '0008-delivery-leases': () => import('./0008-delivery-leases.js'),
  '0009-local-chains': () => import('./0009-local-chains.js'),
  '0010-list-order': () => import('./0010-list-order.js'),
};

/** `PRAGMA application_id` of an svc database (set by 0006; earlier databases have 0). */
export const SVC_APPLICATION_ID = 0x73766365;
