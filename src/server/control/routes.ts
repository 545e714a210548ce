import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { knownNetworkIds } from '../../domain/chains.js';
import type { Environment } from '../../domain/environment.js';
import { generateKey } from '../../domain/keys.js';
import { insertKey } from '../../store/repos/keys.js';
import { findMerchant, setMerchantNetworks } from '../../store/repos/merchants.js';
import { insertPartner } from '../../store/repos/partners.js';
import { ApiError } from '../api-error.js';
import { iso } from '../presenters.js';
import type { RouteDef, RouteInput } from '../route.js';

const advanceBody = z.object({
  seconds: z
    .number({ error: 'seconds must be a number of seconds to move the clock forward.' })
    .positive({ error: 'seconds must be greater than zero: the clock only moves forward.' })
    .max(10 * 365 * 86400, { error: 'seconds must be at most ten years.' }),
});
const partnerBody = z.object({ name: z.string().min(1).max(255).optional() });
const chainsBody = z.object({
  networkIds: z.array(z.number().int()).nullable().meta({ description: 'Enabled networkIds, or null for every chain of the environment.' }),
});

const control = (summary: string, response?: RouteDef['doc']['response']): RouteDef['doc'] => ({
  summary,
  tag: 'Emulator control plane',
  extension: true,
  ...(response ? { response } : {}),
});

function merchantOr404(input: RouteInput<unknown>, deps: Parameters<RouteDef['handle']>[1]) {
  const merchant = findMerchant(deps.store, input.params.merchantId!);
  if (!merchant) throw new ApiError(404, 'merchant_not_found', `No merchant ${input.params.merchantId}.`);
  return merchant;
}

/** CONTRACT §7: loopback-only, no API key (the emulator's own operator is calling). */
export const controlRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/__emulator/health',
    auth: 'none',
    control: true,
    doc: control('Health of the emulator: 503 "degraded" with a reason while writes cannot be stored', { status: 200 }),
    handle: (_input, deps) => {
      const problem = deps.store.health.problem();
      const base = { version: deps.version, now: iso(deps.clock.now()), baseUrl: deps.baseUrl() };
      // CONTRACT §8: a full disk shows here until a write succeeds again.
      if (problem) return { status: 503, body: { status: 'degraded', reason: problem, ...base } };
      return { status: 200, body: { status: 'ok', ...base } };
    },
  },
  {
    method: 'POST',
    path: '/__emulator/reset',
    auth: 'none',
    control: true,
    doc: control('Delete all data and recreate the default partner with the same keys', { status: 200 }),
    handle: async (_input, deps) => {
      await deps.runtime.reset();
      return { status: 200, body: { status: 'reset', keys: deps.runtime.defaultKeys() } };
    },
  },
  {
    method: 'GET',
    path: '/__emulator/clock',
    auth: 'none',
    control: true,
    doc: control('The emulator clock', { status: 200 }),
    handle: (_input, deps) => ({ status: 200, body: clockBody(deps.clock.now(), deps.clock.offset()) }),
  },
  {
    method: 'POST',
    path: '/__emulator/clock/advance',
    auth: 'none',
    control: true,
    body: advanceBody,
    doc: control('Move the clock forward and run everything that falls due (expiries, retries) before answering', { status: 200 }),
    handle: async (input: RouteInput<z.output<typeof advanceBody>>, deps) => {
      const report = await deps.runtime.advanceClock(Math.round(input.body.seconds * 1000));
      return {
        status: 200,
        body: {
          ...clockBody(deps.clock.now(), deps.clock.offset()),
          advancedSeconds: input.body.seconds,
          expired: report.expired,
          deliveryAttempts: report.attempts,
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/__emulator/keys',
    auth: 'none',
    control: true,
    doc: control('The default keys issued at first start', { status: 200 }),
    handle: (_input, deps) => ({ status: 200, body: deps.runtime.defaultKeys() }),
  },
  {
    method: 'POST',
    path: '/__emulator/partners',
    auth: 'none',
    control: true,
    body: partnerBody,
    doc: control('Create a partner with a test and a live key (shown once)', { status: 201 }),
    handle: (input: RouteInput<z.output<typeof partnerBody>>, deps) => {
      const now = deps.clock.now();
      const id = randomUUID();
      const name = input.body.name ?? `Partner ${id.slice(0, 8)}`;
      const keys = { test: generateKey('partner', 'test'), live: generateKey('partner', 'live') };
      deps.store.tx(() => {
        insertPartner(deps.store, { id, name, created_at: now });
        insertKey(deps.store, keys.test, { partnerId: id, merchantId: null }, now);
        insertKey(deps.store, keys.live, { partnerId: id, merchantId: null }, now);
      });
      return { status: 201, body: { partnerId: id, name, test: { partnerKey: keys.test }, live: { partnerKey: keys.live } } };
    },
  },
  {
    method: 'POST',
    path: '/__emulator/merchants/:merchantId/keys',
    auth: 'none',
    control: true,
    doc: control('Issue a new merchant key (shown once)', { status: 201 }),
    handle: (input, deps) => {
      const merchant = merchantOr404(input, deps);
      const key = generateKey('merchant', merchant.environment as Environment);
      insertKey(deps.store, key, { partnerId: merchant.partner_id, merchantId: merchant.id }, deps.clock.now());
      return { status: 201, body: { merchantId: merchant.id, environment: merchant.environment, merchantKey: key } };
    },
  },
  {
    method: 'PUT',
    path: '/__emulator/merchants/:merchantId/chains',
    auth: 'none',
    control: true,
    body: chainsBody,
    doc: control("Set the chains a merchant is paid on (within the environment's enabled chains)", { status: 200 }),
    handle: (input: RouteInput<z.output<typeof chainsBody>>, deps) => {
      const merchant = merchantOr404(input, deps);
      const env = merchant.environment as Environment;
      const ids = input.body.networkIds;
      const unknown = ids?.find((id) => !knownNetworkIds(env).includes(id));
      if (unknown !== undefined) {
        throw new ApiError(400, 'validation_failed', `networkId ${unknown} is not a ${env} chain (known: ${knownNetworkIds(env).join(', ')}).`, 'networkIds');
      }
      setMerchantNetworks(deps.store, merchant.id, ids ? [...new Set(ids)] : null, deps.clock.now());
      return { status: 200, body: { merchantId: merchant.id, environment: env, networkIds: ids ? [...new Set(ids)] : null } };
    },
  },
];

function clockBody(now: number, offsetMs: number) {
  return { now: iso(now), offsetSeconds: Math.round(offsetMs / 1000) };
}
