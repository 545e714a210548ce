import { defineOperations } from '../operation.js';

const control = { tag: 'Emulator control plane', control: true, extension: true } as const;

/** CONTRACT §7: loopback-only, no API key (the emulator's own operator is calling). */
export const controlOperations = defineOperations({
  getHealth: {
    ...control,
    method: 'GET',
    path: '/__emulator/health',
    summary: 'Health of the emulator',
    auth: 'none',
    responses: { 200: 'Health', 503: { schema: 'Health', description: 'Degraded: writes cannot be stored (a full disk); `reason` says why.' } },
  },
  resetEmulator: {
    ...control,
    method: 'POST',
    path: '/__emulator/reset',
    summary: 'Delete all data, recreate the default partner with the same keys, and put the clock back',
    auth: 'none',
    responses: { 200: 'ResetResult' },
  },
  getClock: { ...control, method: 'GET', path: '/__emulator/clock', summary: 'The emulator clock', auth: 'none', responses: { 200: 'Clock' } },
  advanceClock: {
    ...control,
    method: 'POST',
    path: '/__emulator/clock/advance',
    summary: 'Move the clock forward and run everything that falls due (expiries, retries) before answering',
    auth: 'none',
    body: 'AdvanceClockRequest',
    responses: { 200: 'ClockAdvance' },
  },
  resetClock: {
    ...control,
    method: 'POST',
    path: '/__emulator/clock/reset',
    summary: 'Put the clock back: to the real time, or to its start (--clock-start); what was due stays due',
    auth: 'none',
    responses: { 200: 'Clock' },
  },
  getDefaultKeys: {
    ...control,
    method: 'GET',
    path: '/__emulator/keys',
    summary: 'The default keys issued at first start',
    auth: 'none',
    responses: { 200: 'DefaultKeys' },
  },
  createPartner: {
    ...control,
    method: 'POST',
    path: '/__emulator/partners',
    summary: 'Create a partner with a test and a live key (shown once)',
    auth: 'none',
    body: 'CreatePartnerRequest',
    responses: { 201: 'NewPartner' },
  },
  createMerchantKey: {
    ...control,
    method: 'POST',
    path: '/__emulator/merchants/{id}/keys',
    summary: 'Issue a new merchant key (shown once)',
    auth: 'none',
    responses: { 201: 'NewMerchantKey' },
    errors: ['merchant_not_found'],
  },
  setMerchantChains: {
    ...control,
    method: 'PUT',
    path: '/__emulator/merchants/{id}/chains',
    summary: "Set the chains a merchant is paid on (within the environment's enabled chains)",
    auth: 'none',
    body: 'SetMerchantChainsRequest',
    responses: { 200: 'MerchantChains' },
    errors: ['merchant_not_found'],
  },
});
