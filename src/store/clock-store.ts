import { UserError } from '../errors.js';
import { isFiniteNumber, type StoreDb } from './db.js';

/** Where the sandbox's clock is stored (`meta`): how far it was advanced, and a frozen clock's start. */
export const CLOCK_OFFSET = 'clock_offset_ms';
export const CLOCK_START = 'clock_start_ms';

/** The clock a process runs on, as its store decided at start. */
export interface OpenedClock {
  /** A frozen clock's start (ms), or null: the system clock. */
  start: number | null;
  /** How far it was advanced (ms): from `start`, or ahead of the wall clock. */
  offset: number;
  /** Whether advances are stored (and shared): a frozen clock of one process is not (docs/decisions.md). */
  persisted: boolean;
}

/**
 * The emulator clock's write, as the store kit keeps it (CONTRACT §12: one clock for the whole
 * sandbox). Where one process owns the database (SQLite), `--clock-start` freezes that process's
 * clock and the next start begins there again; where replicas share it (PostgreSQL), the first one
 * stores the start and the others follow it (another start: `ClockStartDiffers`).
 */
export interface ClockStore {
  /** At start: the clock to run on, given this process's clock start (null: none given). */
  open(start: number | null): Promise<OpenedClock>;
  /** The stored clock (another process moved it): its start and offset. */
  read(): Promise<{ start: number | null; offset: number | undefined }>;
  /** Adds `ms` to the stored offset under its lock (advances through two replicas compose); the sum. */
  advance(ms: number): Promise<number>;
  /** Stores `offset` (a restore put the clock at a snapshot's time). */
  write(offset: number): Promise<void>;
}

/** A store given a clock start other than the one its sandbox runs on: one line, exit 1 (CONTRACT §12). */
export class ClockStartDiffers extends UserError {
  constructor(
    readonly stored: number,
    readonly given: number,
  ) {
    super(
      `this sandbox's clock started at ${new Date(stored).toISOString()}, and this replica was given --clock-start ${new Date(given).toISOString()}: ` +
        'start it with the same time, or without --clock-start (it follows the sandbox)',
      'clock_start_differs',
    );
  }
}

/** Reads, adds and writes the offset (both kits): under meta's lock, telling the others once committed. */
export function storedOffset(db: StoreDb): Omit<ClockStore, 'open' | 'read'> {
  return {
    advance: (ms) =>
      db.transaction(async (tx) => {
        await tx.meta.lockMeta(CLOCK_OFFSET);
        const next = ((await tx.meta.getMeta(CLOCK_OFFSET, isFiniteNumber)) ?? 0) + ms;
        await tx.meta.setMeta(CLOCK_OFFSET, next);
        // Once committed, before the advance answers: a replica told reads the new offset.
        await tx.publish('clock');
        return next;
      }),
    write: async (offset) => {
      await db.meta.setMeta(CLOCK_OFFSET, offset);
      // After the write committed, before the restore answers.
      await db.publish('clock');
    },
  };
}

/**
 * One process per database (SQLite, CONTRACT §8): a clock start freezes this process's clock, not
 * stored (the next start with the same flag starts at the same time again, docs/decisions.md); the
 * system clock's offset is stored, so an advance outlives a restart.
 */
export function processClock(db: StoreDb): ClockStore {
  return {
    ...storedOffset(db),
    open: async (start) =>
      start !== null
        ? { start, offset: 0, persisted: false }
        : { start: null, offset: (await db.meta.getMeta(CLOCK_OFFSET, isFiniteNumber)) ?? 0, persisted: true },
    read: async () => ({ start: null, offset: await db.meta.getMeta(CLOCK_OFFSET, isFiniteNumber) }),
  };
}
