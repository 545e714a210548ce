import type { Clock } from '../../clock/clock.js';
import { errorMessage } from '../../domain/caught.js';
import type { EventHub } from '../../domain/event-hub.js';
import type { Random } from '../../domain/random.js';
import type { StoreDb } from '../../store/db.js';
import type { EmulatorEvent } from '../events.js';
import { SharedFaultTable } from './shared.js';
import { FaultTable } from './table.js';

/**
 * The API fault table: in memory on SQLite (one process), as it always was; on PostgreSQL shared
 * through the store (./shared.ts), loaded before the first request.
 */
export async function faultTableFor(db: StoreDb, clock: Clock, random: Random, hub: EventHub<EmulatorEvent>): Promise<FaultTable> {
  const now = () => clock.now();
  const newId = () => random.uuid();
  if (db.kind !== 'postgres') return new FaultTable(now, newId);
  const shared = new SharedFaultTable(db, now, newId, (error) => hub.emit({ type: 'error', message: `faults: ${errorMessage(error)}` }));
  await shared.reload();
  return shared;
}
