/**
 * What a request body can get wrong: fields of the wrong type, out of bounds or missing, forbidden
 * fields (`environment`, fees), a Content-Type other than JSON, a body that is not a JSON object,
 * nested very deeply, over 1 MiB, or sent too slowly. Where the contract names the answer (CONTRACT
 * §2), the test checks it; every request also meets `exercise()`'s invariants (bad-input-emulator.ts).
 */
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asObject,
  type BodyChoice,
  bodyFor,
  build,
  encode,
  feeName,
  nonJsonText,
  structuredBody,
  tame,
  unknownName,
  validBody,
} from '../helpers/bad-input-bodies.js';
import { emu, exercise, expectCode, runs, useBadInputEmulator, world } from '../helpers/bad-input-emulator.js';
import { byPath, ENDPOINTS, rightKey } from '../helpers/bad-input-endpoints.js';
import { JSON_TYPES, WRONG_TYPES } from '../helpers/bad-input-headers.js';
import { fresh, headerString, junk } from '../helpers/bad-input-values.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { parseErrorBody } from '../helpers/error-shape.js';
import { type RawResponse, send, sendLarge } from '../helpers/raw-http.js';

let slowSender: Promise<SlowSenderResult>;

beforeAll(() => {
  slowSender = runSlowSender();
  // Awaited by its test; a failure must not surface earlier as an unhandled rejection.
  slowSender.catch(() => undefined);
});

afterAll(async () => {
  // When a filter skipped its test, let the slow exchange finish and its emulator stop.
  await slowSender?.catch(() => undefined);
});

useBadInputEmulator();

describe('fields of the wrong type or out of bounds', () => {
  it('are 400 validation_failed (or the specific code) naming the field', async () => {
    const arb = fc.constantFrom(...ENDPOINTS).chain((e) => {
      const fields = Object.entries(e.fields());
      return fc.integer({ min: 0, max: fields.length - 1 }).chain((i) => {
        const [name, field] = fields[i]!;
        return fc.record({ e: fc.constant(e), base: validBody(e), name: fc.constant(name), bad: field.invalid, type: fc.constantFrom(...JSON_TYPES) });
      });
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, base, name, bad, type }) => {
        const body = { ...base, [name]: bad.value };
        const outcome = await exercise(
          build(e, { auth: `Bearer ${rightKey(e)}`, idem: e.idempotent ? fresh('idem') : undefined, type, body: { kind: 'json', value: body } }),
        );
        expectCode(outcome, 400, bad.code, new RegExp(`^${name}($|[.\\[])`));
      }),
      runs(500),
    );
  });

  it('a missing required field is 400 validation_failed naming it', async () => {
    const arb = fc.constantFrom(...ENDPOINTS).chain((e) => {
      const required = Object.entries(e.fields())
        .filter(([, f]) => f.required)
        .map(([n]) => n);
      return fc.record({ e: fc.constant(e), base: validBody(e), drop: fc.constantFrom(...required) });
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, base, drop }) => {
        const body = { ...base };
        delete body[drop];
        const outcome = await exercise(
          build(e, {
            auth: `Bearer ${rightKey(e)}`,
            idem: e.idempotent ? fresh('idem') : undefined,
            type: 'application/json',
            body: { kind: 'json', value: body },
          }),
        );
        expectCode(outcome, 400, 'validation_failed', drop);
      }),
      runs(100),
    );
  });
});

describe('forbidden fields', () => {
  it('environment anywhere at the top of a body is 400 environment_not_allowed, whatever its value', async () => {
    const arb = fc.constantFrom(...ENDPOINTS).chain((e) => fc.record({ e: fc.constant(e), base: structuredBody(e), env: junk }));
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, base, env }) => {
        const body = { ...base, environment: env };
        const outcome = await exercise(
          build(e, {
            auth: `Bearer ${rightKey(e)}`,
            idem: e.idempotent ? fresh('idem') : undefined,
            type: 'application/json',
            body: { kind: 'json', value: body },
          }),
        );
        expectCode(outcome, 400, 'environment_not_allowed', 'environment');
      }),
      runs(150),
    );
  });

  it('a fee field in create-merchant, at any depth, is 400 fee_fields_not_allowed naming its path', async () => {
    const e = byPath('/v1/partner/merchants');
    const placement = fc.oneof(
      fc.tuple(feeName, junk).map(([k, v]) => ({ path: k, add: { [k]: v } })),
      fc
        .tuple(
          unknownName.filter((k) => /^[A-Za-z]+$/.test(k)),
          feeName,
          junk,
        )
        .map(([outer, k, v]) => ({ path: `${outer}.${k}`, add: { [outer]: { [k]: v } } })),
      fc
        .tuple(
          unknownName.filter((k) => /^[A-Za-z]+$/.test(k)),
          feeName,
          junk,
        )
        .map(([outer, k, v]) => ({ path: `${outer}[0].${k}`, add: { [outer]: [{ [k]: v }] } })),
    );
    await fc.assert(
      fc.asyncProperty(structuredBody(e), placement, async (base, { path, add }) => {
        const outer = Object.keys(add)[0]!;
        const body = { ...base };
        delete body[outer];
        delete body.environment;
        // Only the planted fee field may mention fees (junk values could hide one deeper).
        for (const k of Object.keys(body)) if (/fee/i.test(k) || /fee/i.test(JSON.stringify(body[k]) ?? '')) delete body[k];
        const outcome = await exercise(
          build(e, { auth: `Bearer ${rightKey(e)}`, idem: fresh('idem'), type: 'application/json', body: { kind: 'json', value: { ...body, ...add } } }),
        );
        expectCode(outcome, 400, 'fee_fields_not_allowed', path);
      }),
      runs(150),
    );
  });
});

describe('content types and bodies that are not JSON objects', () => {
  it('a body that is not declared application/json is 415 unsupported_media_type', async () => {
    const wrongType = fc.oneof(
      fc.constantFrom<string | undefined>(undefined, ...WRONG_TYPES),
      headerString(0, 40).filter((t) => t.split(';')[0]!.trim().toLowerCase() !== 'application/json'),
    );
    const arb = fc
      .constantFrom(...ENDPOINTS)
      .chain((e) => fc.record({ e: fc.constant(e), body: bodyFor(e).filter((b) => b.kind !== 'none' && (encode(b)?.length ?? 0) > 0), type: wrongType }));
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, body, type }) => {
        expectCode(await exercise(build(e, { auth: `Bearer ${rightKey(e)}`, idem: fresh('idem'), type, body })), 415, 'unsupported_media_type');
      }),
      runs(150),
    );
  });

  it('a JSON body that is not an object, or not JSON at all, is 400 invalid_json', async () => {
    const body: fc.Arbitrary<BodyChoice> = fc.oneof(
      fc
        .jsonValue({ maxDepth: 3 })
        .filter((v) => v === null || typeof v !== 'object' || Array.isArray(v))
        .map((value) => ({ kind: 'json' as const, value })),
      fc.uint8Array({ minLength: 1, maxLength: 300 }).map((value) => ({ kind: 'bytes' as const, value })),
      nonJsonText.map((value) => ({ kind: 'text' as const, value })),
      fc.constant({ kind: 'none' as const }),
    );
    const arb = fc.constantFrom(...ENDPOINTS).chain((e) => fc.record({ e: fc.constant(e), body, type: fc.constantFrom(...JSON_TYPES) }));
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, body: b, type }) => {
        const req = build(e, { auth: `Bearer ${rightKey(e)}`, idem: fresh('idem'), type, body: b });
        const outcome = await exercise(req);
        // Random bytes are very rarely a JSON object; when they are, only the invariants apply.
        if (asObject(req.body) === undefined) expectCode(outcome, 400, 'invalid_json');
      }),
      runs(200),
    );
  });
});

describe('bodies nested very deeply', () => {
  it.each([
    ['/v1/invoices', 'POST', 5_000],
    ['/v1/invoices', 'POST', 100_000],
    ['/v1/partner/invoices', 'POST', 20_000],
    ['/v1/partner/merchants', 'POST', 5_000],
    ['/v1/partner/merchants', 'POST', 100_000],
    ['/v1/partner/webhook', 'PUT', 100_000],
  ])('%s (%s) with a %i-level array in an unknown field is refused or accepted, never a 500', async (path, method, depth) => {
    const e = byPath(path);
    const base = fc.sample(validBody(e), { numRuns: 1, seed: depth })[0]!;
    const json = JSON.stringify((tame(e, { kind: 'json', value: base }) as { value: unknown }).value);
    const body = `${json.slice(0, -1)},"nested":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const outcome = await exercise({
      method,
      path,
      headers: { authorization: `Bearer ${rightKey(e)}`, 'content-type': 'application/json', ...(e.idempotent ? { 'idempotency-key': fresh('deep') } : {}) },
      body,
    });
    expect(outcome.res.status).toBeLessThan(500);
  });
});

describe('body size', () => {
  const MiB = 1024 * 1024;
  const prefix = '{"amount":"1.00","padding":"';
  const suffix = '"}';
  const base = (idem: string): Record<string, string> => ({
    authorization: `Bearer ${world.keys.test.merchantKey}`,
    'content-type': 'application/json',
    'idempotency-key': idem,
  });
  const headers = (length: number | 'chunked', idem: string) => ({
    ...base(idem),
    ...(length === 'chunked' ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) }),
  });

  it.each([['content-length' as const], ['chunked' as const]])('a body over 1 MiB (%s) is 413 payload_too_large and stores nothing', async (mode) => {
    const idem = fresh('big');
    const before = await snapshot(emu);
    const res = await sendLarge(emu.port, headers(mode === 'chunked' ? 'chunked' : MiB + 1, idem), prefix, MiB + 1, suffix);
    expect(res.status, res.text).toBe(413);
    expect(res.headers['request-id']).toMatch(/\S/);
    expect(parseErrorBody(res.text).error.code).toBe('payload_too_large');
    expect(await snapshot(emu)).toBe(before);
    // The refused request released its Idempotency-Key: it can be used for a real create.
    const retry = await exercise({ method: 'POST', path: '/v1/invoices', headers: base(idem), body: '{"amount":"1.00","x":"abc"}' });
    expect(retry.res.status, retry.res.text).toBe(201);
  });

  it('a body of exactly 1 MiB is read (and here, accepted with a Warning for the unknown field)', async () => {
    const res = await sendLarge(emu.port, headers(MiB, fresh('exact')), prefix, MiB, suffix);
    expect(res.status, res.text).toBe(201);
    expect(res.headers.warning).toMatch(/padding/);
  });

  it('a huge Content-Length is refused before any byte is read', async () => {
    const before = await snapshot(emu);
    const res = await new Promise<RawResponse>((resolve, reject) => {
      const r = http.request(
        { host: '127.0.0.1', port: emu.port, method: 'POST', path: '/v1/invoices', headers: headers(50 * MiB, fresh('huge')), agent: false },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () => {
            r.destroy();
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      r.on('error', reject);
      r.write('{"amount":"1.00"'); // and nothing more
    });
    expect(res.status).toBe(413);
    expect(parseErrorBody(res.text).error.code).toBe('payload_too_large');
    expect(await snapshot(emu)).toBe(before);
  });
});

describe('a slow sender', () => {
  // src/server/app.ts: BODY_TIMEOUT_MS = 10_000, a constant (not configurable), answered with 408.
  // The exchange runs on its own emulator from the start of the file (see beforeAll), so that its
  // ten seconds of waiting overlap the properties above instead of adding to them.
  it('who sends half a body and stalls gets the contract-shaped 408 after the body timeout; the key is held meanwhile and released after', async () => {
    const r = await slowSender;
    expect(r.concurrent.status, r.concurrent.text).toBe(409);
    expect(parseErrorBody(r.concurrent.text).error.code).toBe('idempotency_key_in_progress');
    expect(r.elapsed).toBeGreaterThanOrEqual(9_500);
    expect(r.elapsed).toBeLessThan(25_000);
    expect(r.res.status, r.res.text).toBe(408);
    expect(r.res.headers['request-id']).toMatch(/\S/);
    expect(r.res.headers.connection).toBe('close');
    expect(parseErrorBody(r.res.text).error.code).toBe('request_timeout');
    expect(r.after).toBe(r.before);
    // The key was released: the complete request then created the invoice.
    expect(r.retry.status, r.retry.text).toBe(201);
  }, 30_000);
});

interface SlowSenderResult {
  res: RawResponse;
  elapsed: number;
  concurrent: RawResponse;
  before: string;
  after: string;
  retry: RawResponse;
}

/** Half a body, then nothing: on a second emulator, with the same key tried meanwhile and after. */
async function runSlowSender(): Promise<SlowSenderResult> {
  const emu2 = await startTestEmulator();
  try {
    const key = emu2.keys.test.merchantKey;
    const idem = fresh('slow');
    const full = '{"amount":"12.00","referenceId":"slow-sender"}';
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idem };
    const before = await snapshot(emu2);
    const started = Date.now();
    let req: http.ClientRequest | undefined;
    const response = new Promise<RawResponse>((resolve, reject) => {
      req = http.request(
        {
          host: '127.0.0.1',
          port: emu2.port,
          method: 'POST',
          path: '/v1/invoices',
          agent: false,
          headers: { ...headers, 'content-length': String(full.length) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      req.write(full.slice(0, Math.floor(full.length / 2)));
    });
    // While the first request is stuck in its body, the same key is in progress.
    await new Promise((r) => setTimeout(r, 300));
    const concurrent = await send(emu2.port, { method: 'POST', path: '/v1/invoices', headers, body: full });
    const res = await response;
    const elapsed = Date.now() - started;
    req!.destroy();
    const after = await snapshot(emu2);
    const retry = await send(emu2.port, { method: 'POST', path: '/v1/invoices', headers, body: full });
    return { res, elapsed, concurrent, before, after, retry };
  } finally {
    await emu2.stop();
  }
}
