import { knownNetworkIds } from '../../domain/chains.js';
import { generateKey } from '../../domain/keys.js';
import { insertKey } from '../../store/repos/keys.js';
import { findMerchant, setMerchantNetworks } from '../../store/repos/merchants.js';
import { insertPartner } from '../../store/repos/partners.js';
import { ApiError } from '../api-error.js';
import type { Handlers } from '../handler.js';
import { iso } from '../presenters.js';
import type { AppDeps } from '../route.js';

function merchantOr404(deps: AppDeps, id: string) {
  const merchant = findMerchant(deps.store, id);
  if (!merchant) throw new ApiError(404, 'merchant_not_found', `No merchant ${id}.`);
  return merchant;
}

function clockBody(deps: AppDeps) {
  return { now: iso(deps.clock.now()), offsetSeconds: Math.round(deps.clock.offset() / 1000) };
}

/** CONTRACT §7: loopback-only, no API key (the emulator's own operator is calling). */
export const controlHandlers = {
  getHealth: (_input, deps) => {
    const problem = deps.store.health.problem();
    const base = { version: deps.version, now: iso(deps.clock.now()), baseUrl: deps.baseUrl() };
    // CONTRACT §8: a full disk shows here until a write succeeds again.
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
  getDefaultKeys: (_input, deps) => ({ status: 200, body: deps.runtime.defaultKeys() }),
  createPartner: (input, deps) => {
    const now = deps.clock.now();
    const id = deps.random.uuid();
    const name = input.body.name ?? `Partner ${id.slice(0, 8)}`;
    const keys = { test: generateKey('partner', 'test', deps.random), live: generateKey('partner', 'live', deps.random) };
    deps.store.tx(() => {
      insertPartner(deps.store, { id, name, created_at: now });
      insertKey(deps.store, keys.test, { partnerId: id, merchantId: null }, now);
      insertKey(deps.store, keys.live, { partnerId: id, merchantId: null }, now);
    });
    return { status: 201, body: { partnerId: id, name, test: { partnerKey: keys.test }, live: { partnerKey: keys.live } } };
  },
  createMerchantKey: (input, deps) => {
    const merchant = merchantOr404(deps, input.params.id);
    const key = generateKey('merchant', merchant.environment, deps.random);
    insertKey(deps.store, key, { partnerId: merchant.partner_id, merchantId: merchant.id }, deps.clock.now());
    return { status: 201, body: { merchantId: merchant.id, environment: merchant.environment, merchantKey: key } };
  },
  setMerchantChains: (input, deps) => {
    const merchant = merchantOr404(deps, input.params.id);
    const env = merchant.environment;
    const ids = input.body.networkIds;
    const unknown = ids?.find((id) => !knownNetworkIds(env).includes(id));
    if (unknown !== undefined) {
      throw new ApiError(400, 'validation_failed', `networkId ${unknown} is not a ${env} chain (known: ${knownNetworkIds(env).join(', ')}).`, 'networkIds');
    }
    const networkIds = ids ? [...new Set(ids)] : null;
    setMerchantNetworks(deps.store, merchant.id, networkIds, deps.clock.now());
    return { status: 200, body: { merchantId: merchant.id, environment: env, networkIds } };
  },
} satisfies Handlers<
  'getHealth' | 'resetEmulator' | 'getClock' | 'advanceClock' | 'getDefaultKeys' | 'createPartner' | 'createMerchantKey' | 'setMerchantChains'
>;
