import type { Migration } from 'kysely';
import * as m0001 from './0001-initial.js';
import * as m0002 from './0002-lifecycle.js';
import * as m0003 from './0003-listeners.js';
import * as m0004 from './0004-trim-indexes.js';
import * as m0005 from './0005-due-index-url.js';
import * as m0006 from './0006-application-id.js';

/**
 * Registered statically rather than read from a folder: the build output and bundlers then
 * cannot lose a migration, and the order is the order written here.
 */
export const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-lifecycle': m0002,
  '0003-listeners': m0003,
  '0004-trim-indexes': m0004,
  '0005-due-index-url': m0005,
  '0006-application-id': m0006,
};

/** `PRAGMA application_id` of an svc database (set by 0006; earlier databases have 0). */
export const SVC_APPLICATION_ID = 0x73766365;
