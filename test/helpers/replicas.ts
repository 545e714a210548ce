/**
 * Several emulators on one PostgreSQL database: replicas of one shared sandbox (CONTRACT §12), in
 * one test process. `const replicas = replicaSet();` at a file's top level stops them after each test.
 */
import { afterEach } from 'vitest';
import type { StartEmulatorOptions } from '../../src/server/start.js';
import { startTestEmulator, type TestEmulator } from './emulator.js';

export interface ReplicaSet {
  /** `count` emulators on `database`, started one after another (the first migrates it). */
  start(database: string, count: number, options?: StartEmulatorOptions): Promise<TestEmulator[]>;
}

export function replicaSet(): ReplicaSet {
  const running: TestEmulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((e) => e.stop()));
  });
  return {
    start: async (database, count, options = {}) => {
      const started: TestEmulator[] = [];
      for (let i = 0; i < count; i++) {
        const emulator = await startTestEmulator({ ...options, database });
        running.push(emulator);
        started.push(emulator);
      }
      return started;
    },
  };
}

/** Polls `check` every 10 ms until it answers something truthy; fails naming `what` after `ceilingMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined | null | false> | T | undefined | null | false, ceilingMs = 5000): Promise<T> {
  const deadline = Date.now() + ceilingMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waited ${ceilingMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
