import type { Clock } from '../clock/clock.js';
import type { EmulatorConfig } from '../config/defaults.js';
import type { DefaultKeys } from '../contract/default-keys.js';
import type { Random } from '../domain/random.js';
import type { StoreDb, Tx } from '../store/db.js';
import { ensureDefaults, ensureDefaultsIn, storedDefaults } from './bootstrap.js';

/** The default partner's keys, recreated (pinned keys kept) after a reset or a restore. */
export interface KeysHolder {
  readonly current: DefaultKeys;
  renew(): Promise<void>;
  /** `renew` in the caller's transaction; `current` changes once it committed. */
  renewIn(tx: Tx): Promise<void>;
  /** Another replica renewed them: `current` becomes what is stored (nothing is written). */
  reload(): Promise<void>;
}

export async function keysHolder(db: StoreDb, config: EmulatorConfig, clock: Clock, random: Random): Promise<KeysHolder> {
  let keys = await ensureDefaults(db, config, clock.now(), random);
  return {
    get current() {
      return keys;
    },
    renew: async () => {
      keys = await ensureDefaults(db, config, clock.now(), random);
    },
    reload: async () => {
      keys = (await storedDefaults(db, config)) ?? keys;
    },
    renewIn: async (tx) => {
      const renewed = await ensureDefaultsIn(tx, config, clock.now(), random);
      tx.afterCommit(() => {
        keys = renewed;
      });
    },
  };
}
