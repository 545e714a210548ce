import type { Random } from '../domain/random.js';
import type { EmulatorConfig } from '../config/defaults.js';
import { ENVIRONMENTS, type Environment } from '../domain/environment.js';
import { generateKey } from '../domain/keys.js';
import type { StoreDb, Tx } from '../store/db.js';
import type { DefaultKeys, EnvironmentKeys } from '../contract/default-keys.js';

// Declared in the contract (default-keys.ts) so that the public API's types never reach the database layer.
export type { DefaultKeys, EnvironmentKeys } from '../contract/default-keys.js';

const META_KEY = 'default_identity';

const hasStrings = (value: unknown, keys: readonly string[]): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && keys.every((k) => typeof Reflect.get(value, k) === 'string');
const isEnvironmentKeys = (value: unknown): value is EnvironmentKeys => hasStrings(value, ['partnerKey', 'merchantKey', 'merchantId']);
/** The stored identity, checked: a restored snapshot carries it (CONTRACT §8, untrusted). */
const isDefaultKeys = (value: unknown): value is DefaultKeys =>
  hasStrings(value, ['partnerId']) && isEnvironmentKeys(value.test) && isEnvironmentKeys(value.live);

/**
 * Makes sure the default partner, its merchant in each environment and their keys exist. The
 * identity (ids and keys) is kept in `meta`, the only place keys are readable, so that a reset
 * restores the same keys and local tools keep working. Pinned keys from the config win; a default
 * key they replace (a key pinned before, or the generated one) is revoked (CONTRACT §8), so that
 * changing a pinned key in the config does not leave the old one working until a reset.
 */
export function ensureDefaults(db: StoreDb, config: EmulatorConfig, now: number, random: Random): Promise<DefaultKeys> {
  return db.transaction((tx) => ensureDefaultsIn(tx, config, now, random));
}

/**
 * The default identity as stored (another replica renewed it: a restore brought other keys), with
 * this process's pinned keys over it; undefined when none is stored. Reads only.
 */
export async function storedDefaults(db: StoreDb, config: EmulatorConfig): Promise<DefaultKeys | undefined> {
  const stored = await db.meta.getMeta(META_KEY, isDefaultKeys);
  if (!stored) return undefined;
  for (const env of ENVIRONMENTS) {
    for (const kind of ['partnerKey', 'merchantKey'] as const) {
      const pinned = config.keys[env][kind];
      if (pinned) stored[env][kind] = pinned;
    }
  }
  return stored;
}

/** `ensureDefaults` in the caller's transaction: a reset's, right after it emptied the tables. */
export async function ensureDefaultsIn(tx: Tx, config: EmulatorConfig, now: number, random: Random): Promise<DefaultKeys> {
  // Replicas starting together on one PostgreSQL database: the first writes the identity, the
  // others wait here and read it (one default partner and one set of keys for all; nothing on SQLite).
  await tx.meta.lockMeta(META_KEY);
  const stored = await tx.meta.getMeta(META_KEY, isDefaultKeys);
  const identity: DefaultKeys = stored ?? {
    partnerId: random.uuid(),
    test: freshKeys('test', random, now),
    live: freshKeys('live', random, now),
  };
  for (const env of ENVIRONMENTS) {
    const pinned = config.keys[env];
    for (const kind of ['partnerKey', 'merchantKey'] as const) {
      const key = pinned[kind];
      if (!key || key === identity[env][kind]) continue;
      await tx.keys.deleteKey(identity[env][kind]);
      identity[env][kind] = key;
      // Revoked: other replicas on the database forget it too (nothing on SQLite).
      await tx.publish('keys');
    }
  }

  // A fresh identity's ids were drawn just now: nothing can hold them yet, no lookups (bench #12, #13).
  const fresh = stored === undefined;
  if (fresh || !(await tx.partners.findPartner(identity.partnerId))) {
    await tx.partners.insertPartner({ id: identity.partnerId, name: 'Default partner', created_at: now });
  }
  for (const env of ENVIRONMENTS) {
    const keys = identity[env];
    if (fresh || !(await tx.merchants.findMerchant(keys.merchantId))) {
      await tx.merchants.insertMerchant({
        id: keys.merchantId,
        partner_id: identity.partnerId,
        environment: env,
        organization_id: random.uuid(),
        external_tenant_id: `default-${env}`,
        name: `Default ${env} merchant`,
        email: 'merchant@example.com',
        integration_status: 'ACTIVE',
        dashboard_access: 1,
        auto_payout_enabled: 0,
        network_ids: null,
        created_at: now,
        updated_at: now,
      });
    }
    await tx.keys.insertKey(keys.partnerKey, { partnerId: identity.partnerId, merchantId: null }, now);
    await tx.keys.insertKey(keys.merchantKey, { partnerId: identity.partnerId, merchantId: keys.merchantId }, now);
  }
  await tx.meta.setMeta(META_KEY, identity);
  return identity;
}

/** The default merchant's id is a v7 at `now`, as every merchant's (./actions/create-merchant.ts). */
function freshKeys(env: Environment, random: Random, now: number): EnvironmentKeys {
  return { partnerKey: generateKey('partner', env, random), merchantKey: generateKey('merchant', env, random), merchantId: random.uuidv7(now) };
}
