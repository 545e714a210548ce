import { knownNetworkIds } from '../../domain/chains.js';
import { generateKey } from '../../domain/keys.js';
import type { Repos } from '../../store/db.js';
import { ApiError } from '../api-error.js';
import type { Handlers } from '../handler.js';
import { iso } from '../presenters.js';
import type { AppDeps } from '../route.js';

/** Read in the transaction that writes for the merchant: a reset in between cannot leave a dangling key. */
async function merchantOr404(tx: Repos, id: string) {
  const merchant = await tx.merchants.findMerchant(id);
  if (!merchant) throw new ApiError(404, 'merchant_not_found', `No merchant ${id}.`);
  return merchant;
}

function clockBody(deps: AppDeps) {
  return { now: iso(deps.clock.now()), offsetSeconds: Math.round(deps.clock.offset() / 1000) };
}

/** The process's working folder; none once it was removed (process.cwd() then throws). */
function workingFolder(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

/** CONTRACT §7: loopback-only, no API key (the emulator's own operator is calling). */
export const controlHandlers = {
  getHealth: async (_input, deps) => {
    const problem = await deps.db.checkHealth();
    // The process and its folder: what a second `svc dev` on this port says it collided with.
    const folder = workingFolder();
    const base = { version: deps.version, now: iso(deps.clock.now()), baseUrl: deps.baseUrl(), pid: process.pid, ...(folder ? { folder } : {}) };
    // CONTRACT §8: a full disk shows here until a write succeeds again; §12: a shared database that is down.
    if (problem) return { status: 503, body: { status: 'degraded', reason: problem, ...base } };
    return { status: 200, body: { status: 'ok', ...base } };
  },
  resetEmulator: async (_input, deps) => {
    await deps.runtime.reset();
    return { status: 200, body: { status: 'reset', keys: deps.runtime.defaultKeys() } };
  },
  getClock: (_input, deps) => ({ status: 200, body: clockBody(deps) }),
  advanceClock: async (input, deps) => {
    const report = await deps.runtime.advanceClock(Math.round(input.body.seconds * 1000));
    return {
      status: 200,
      body: { ...clockBody(deps), advancedSeconds: input.body.seconds, expired: report.expired, deliveryAttempts: report.attempts },
    };
  },
  resetClock: async (_input, deps) => {
    await deps.runtime.resetClock();
    return { status: 200, body: clockBody(deps) };
  },
  getDefaultKeys: (_input, deps) => ({ status: 200, body: deps.runtime.defaultKeys() }),
  createPartner: async (input, deps) => {
    const now = deps.clock.now();
    const id = deps.random.uuid();
    const name = input.body.name ?? `Partner ${id.slice(0, 8)}`;
    const keys = { test: generateKey('partner', 'test', deps.random), live: generateKey('partner', 'live', deps.random) };
    await deps.db.transaction(async (tx) => {
      await tx.partners.insertPartner({ id, name, created_at: now });
      await tx.keys.insertKey(keys.test, { partnerId: id, merchantId: null }, now);
      await tx.keys.insertKey(keys.live, { partnerId: id, merchantId: null }, now);
    });
    return { status: 201, body: { partnerId: id, name, test: { partnerKey: keys.test }, live: { partnerKey: keys.live } } };
  },
  createMerchantKey: async (input, deps) => {
    const { merchant, key } = await deps.db.transaction(async (tx) => {
      const merchant = await merchantOr404(tx, input.params.id);
      const key = generateKey('merchant', merchant.environment, deps.random);
      await tx.keys.insertKey(key, { partnerId: merchant.partner_id, merchantId: merchant.id }, deps.clock.now());
      return { merchant, key };
    });
    return { status: 201, body: { merchantId: merchant.id, environment: merchant.environment, merchantKey: key } };
  },
  setMerchantChains: async (input, deps) => {
    const { merchant, networkIds } = await deps.db.transaction(async (tx) => {
      const merchant = await merchantOr404(tx, input.params.id);
      const env = merchant.environment;
      const ids = input.body.networkIds;
      const unknown = ids?.find((id) => !knownNetworkIds(env).includes(id));
      if (unknown !== undefined) {
        throw new ApiError(400, 'validation_failed', `networkId ${unknown} is not a ${env} chain (known: ${knownNetworkIds(env).join(', ')}).`, 'networkIds');
      }
      const networkIds = ids ? [...new Set(ids)] : null;
      await tx.merchants.setMerchantNetworks(merchant.id, networkIds, deps.clock.now());
      return { merchant, networkIds };
    });
    return { status: 200, body: { merchantId: merchant.id, environment: merchant.environment, networkIds } };
  },
} satisfies Handlers<
  'getHealth' | 'resetEmulator' | 'getClock' | 'advanceClock' | 'resetClock' | 'getDefaultKeys' | 'createPartner' | 'createMerchantKey' | 'setMerchantChains'
>;
