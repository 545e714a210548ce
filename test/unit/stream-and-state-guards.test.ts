/**
 * Issue 26: what the CLI reads from outside without a schema library is checked by looking, not cast:
 * the messages of `svc webhook deliveries tail`'s and `svc logs tail`'s streams, and `.svc/dev.json`. A value of
 * another shape (another svc version, a hand-edited file) reads as null instead of flowing on.
 */
import { describe, expect, it } from 'vitest';
import { requestLineFieldsOf } from '../../src/cli/commands/logs/journal-message.js';
import { attemptLineOf } from '../../src/cli/commands/webhook/deliveries/attempt-message.js';
import { localStateOf } from '../../src/cli/local-emulator.js';

const attempt = {
  type: 'delivery.result',
  partnerId: '00000000-0000-4000-8000-000000000001',
  environment: 'test',
  invoiceId: '00000000-0000-4000-8000-000000000002',
  deliveryId: '00000000-0000-4000-8000-000000000003',
  eventId: '00000000-0000-4000-8000-000000000002-1',
  eventType: 'invoice.paid',
  url: 'http://localhost:3000/hooks',
  target: 'webhook',
  attempt: 1,
  trigger: 'scheduled',
  startedAt: '2030-01-01T00:00:00.000Z',
  ok: false,
  responseStatus: null,
  durationMs: 12,
  error: 'connection_refused: ECONNREFUSED',
  status: 'retrying',
  nextAttemptAt: '2030-01-01T00:00:05.000Z',
};

describe('attemptLineOf', () => {
  it("keeps tail's fields of a delivery.result, leaving out the partner id and the event type", () => {
    const { type: _type, partnerId: _partner, ...line } = attempt;
    expect(attemptLineOf(attempt)).toEqual(line);
    expect(attemptLineOf({ ...attempt, ok: true, responseStatus: 200, error: null, status: 'succeeded', nextAttemptAt: null })).toMatchObject({
      ok: true,
      responseStatus: 200,
    });
  });

  it('is null for a message of another shape', () => {
    for (const bad of [
      null,
      'text',
      [],
      { ...attempt, deliveryId: 7 },
      { ...attempt, environment: 'staging' },
      { ...attempt, status: 'lost' },
      { ...attempt, trigger: undefined },
      { ...attempt, responseStatus: '200' },
      { ...attempt, nextAttemptAt: 0 },
    ]) {
      expect(attemptLineOf(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});

const keys = { partnerKey: 'pt_test_x', merchantKey: 'test_x', merchantId: 'm' };
const state = {
  baseUrl: 'http://127.0.0.1:4747',
  pid: 42,
  startedAt: '2030-01-01T00:00:00.000Z',
  database: ':memory:',
  keys: { partnerId: 'p', test: keys, live: keys },
};

describe('localStateOf', () => {
  it('reads what svc dev writes, and only that', () => {
    expect(localStateOf({ ...state, extra: true })).toEqual(state);
  });

  it('is null for a file of another shape: its pid would decide what is signalled', () => {
    for (const bad of [null, [], { ...state, pid: '42' }, { ...state, baseUrl: undefined }, { ...state, keys: { ...state.keys, live: { partnerKey: 'x' } } }]) {
      expect(localStateOf(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});

const request = {
  id: 'req_1',
  at: '2030-01-01T00:00:00.000Z',
  method: 'POST',
  path: '/v1/invoices',
  query: '',
  status: null,
  durationMs: 3,
  principal: null,
  replayed: false,
  fault: 'flt_1',
  responseBody: null,
};

describe('requestLineFieldsOf', () => {
  it('keeps what a request line shows; a dropped answer (status null) and no key (principal null) included', () => {
    expect(requestLineFieldsOf({ ...request, key: null, truncated: false })).toEqual(request);
    const principal = { kind: 'partner', environment: 'live', partnerId: 'p', merchantId: null };
    expect(requestLineFieldsOf({ ...request, principal })).toEqual({ ...request, principal: { kind: 'partner', environment: 'live' } });
  });

  it('is null for a message of another shape', () => {
    for (const bad of [
      null,
      7,
      { ...request, id: 7 },
      { ...request, status: '201' },
      { ...request, principal: { kind: 'admin', environment: 'test' } },
      { ...request, replayed: 'no' },
    ]) {
      expect(requestLineFieldsOf(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
