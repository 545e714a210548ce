/**
 * The OpenAPI document agrees with the behaviour: what its request schemas say is invalid is
 * refused as CONTRACT §2 says, its minimum bodies are accepted with a documented status, and its
 * security and idempotency are what the emulator does.
 * Raw HTTP on purpose: the requests are built from the document, not from the typed client.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { CREATE_OPERATIONS, INTERFACE_OPERATIONS, type Json, type Operation, openApiDoc, READ_EXTENSIONS } from '../helpers/openapi-doc.js';

// ajv-formats is CommonJS with a default export: under NodeNext its default is the module object.
const addFormats = ((addFormatsModule as Json).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

let emu: TestEmulator;
let doc: Json;

beforeAll(async () => {
  emu = await startTestEmulator();
  doc = (await emu.call('GET', '/openapi.json')).body;
});
afterAll(async () => {
  await emu?.stop();
});

const { resolve, operations, mustFind } = openApiDoc(() => doc);

describe('the document agrees with the behaviour', () => {
  /** A valid value per body field name, for the bodies the checks below build. */
  const EXAMPLES: Record<string, () => unknown> = {
    amount: () => '10.00',
    merchantId: () => emu.keys.test.merchantId,
    externalTenantId: () => `tenant-${ikey()}`,
    email: () => 'owner@example.com',
    name: () => 'Example',
    url: () => 'http://localhost:9999/hooks',
    secret: () => 'a-secret-of-more-than-16-chars',
    seconds: () => 1,
    networkIds: () => null,
  };

  const CONDITIONAL = ['secret'];

  /** JSON types a schema admits, or null when it does not say simply. */
  function typesOf(schemaNode: Json): Set<string> | null {
    const schema = resolve(schemaNode);
    if (!schema || typeof schema !== 'object') return null;
    if (typeof schema.type === 'string') return new Set([schema.type]);
    if (Array.isArray(schema.type)) return new Set(schema.type);
    const union = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(union)) {
      const out = new Set<string>();
      for (const s of union) {
        const t = typesOf(s);
        if (!t) return null;
        for (const x of t) out.add(x);
      }
      return out;
    }
    return null;
  }

  /** A value whose JSON type the schema does not admit. */
  function wrongValueFor(types: Set<string>): unknown {
    const candidates: [string, unknown][] = [
      ['string', 'not-the-right-type'],
      ['number', 12.5],
      ['boolean', true],
      ['array', []],
      ['object', { nested: 1 }],
      ['null', null],
    ];
    return candidates.find(([t]) => !types.has(t))![1];
  }

  /** Values that break one documented constraint of a scalar schema (length, range, format). */
  function violationsOf(schema: Json): unknown[] {
    const out: unknown[] = [];
    if (schema.type === 'string') {
      if (typeof schema.maxLength === 'number') out.push('x'.repeat(schema.maxLength + 1));
      if (typeof schema.minLength === 'number' && schema.minLength > 0) out.push('x'.repeat(schema.minLength - 1));
      if (schema.format === 'uuid') out.push('not-a-uuid');
      if (schema.format === 'email') out.push('no-at-sign.example.com');
    }
    if (schema.type === 'integer' || schema.type === 'number') {
      if (typeof schema.exclusiveMinimum === 'number') out.push(schema.exclusiveMinimum);
      if (typeof schema.minimum === 'number') out.push(schema.minimum - 1);
      if (typeof schema.maximum === 'number') out.push(schema.maximum * 2);
      if (schema.type === 'integer') out.push(1.5);
    }
    return out;
  }

  const keyFor = (o: Operation): string | undefined => {
    const security: Json[] = o.op.security ?? [];
    if (!security.length) return undefined;
    return security.some((s) => 'partnerKey' in s) ? emu.keys.test.partnerKey : emu.keys.test.merchantKey;
  };

  async function concretePath(o: Operation): Promise<string | undefined> {
    let path = o.path;
    for (const [, name] of o.path.matchAll(/\{([^}]+)\}/g)) {
      if (name === 'merchantId') path = path.replace(`{${name}}`, emu.keys.test.merchantId);
      else if (name === 'invoiceId') {
        const invoice = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1.00' } });
        path = path.replace(`{${name}}`, invoice.body.id);
      } else return undefined;
    }
    return path;
  }

  const send = (o: Operation, path: string, body: unknown) => {
    const hasIdem = (o.op.parameters ?? []).map(resolve).some((p: Json) => p.in === 'header' && /^idempotency-key$/i.test(p.name));
    return emu.call(o.method.toUpperCase(), path, { key: keyFor(o), body, ...(hasIdem ? { idempotencyKey: ikey() } : {}) });
  };

  const withBodies = () => operations().filter((o) => o.op.requestBody?.content?.['application/json']?.schema);

  it('has operations with request bodies to check', () => {
    expect(withBodies().length).toBeGreaterThanOrEqual(6);
  });

  it('a body the schema says is invalid is answered 400 validation_failed naming the field', async () => {
    const checked: string[] = [];
    for (const o of withBodies()) {
      const label = `${o.method.toUpperCase()} ${o.path}`;
      const body = resolve(o.op.requestBody.content['application/json'].schema);
      // A JSON-RPC body (a local chain's rpcUrl) is one request or a batch of them: the request's.
      const schema = body.oneOf ? resolve(body.oneOf[0]) : body;
      expect(schema.type, label).toBe('object');
      const required: string[] = schema.required ?? [];
      const properties: Record<string, Json> = schema.properties ?? {};
      const path = await concretePath(o);
      if (path === undefined) continue;

      // An empty object lacks every required field.
      if (required.length) {
        const res = await send(o, path, {});
        expect(res.status, `${label} with {}: ${res.text}`).toBe(400);
        expect(res.body.error.code, label).toBe('validation_failed');
        expect(required, label).toContain(res.body.error.param);
        expect(o.op.requestBody.required, `${label}: a body is required, so requestBody.required`).toBe(true);
      }

      if (!required.every((f) => f in EXAMPLES)) continue;
      // `secret` is optional in the schema but needed on the first PUT of a webhook (interface §6.2):
      // a condition a schema cannot state, documented in its description instead.
      const fields = [...required, ...Object.keys(properties).filter((f) => CONDITIONAL.includes(f) && !required.includes(f))];
      const base = () => Object.fromEntries(fields.map((f) => [f, EXAMPLES[f]!()]));

      // The schema's own minimum is accepted with a documented success status.
      const ok = await send(o, path, base());
      const documented = Object.keys(o.op.responses)
        .filter((s) => /^2\d\d$/.test(s))
        .map(Number);
      expect(documented, `${label}: ${ok.text}`).toContain(ok.status);

      // Each required field left out.
      for (const field of required) {
        const body = base();
        delete body[field];
        const res = await send(o, path, body);
        expect(res.status, `${label} without ${field}: ${res.text}`).toBe(400);
        expect(res.body.error, `${label} without ${field}`).toMatchObject({ code: 'validation_failed', param: field });
      }

      // Each documented field with a value of a type the schema does not allow.
      for (const [field, propSchema] of Object.entries(properties)) {
        const types = typesOf(propSchema);
        if (!types) continue;
        const value = wrongValueFor(types);
        const res = await send(o, path, { ...base(), [field]: value });
        expect(res.status, `${label} with ${field}=${JSON.stringify(value)}: ${res.text}`).toBe(400);
        expect(res.body.error.code, `${label} with ${field}=${JSON.stringify(value)}`).toBe('validation_failed');
        expect(String(res.body.error.param).startsWith(field), `${label} param for ${field}`).toBe(true);
      }
      // Each documented bound, just broken: validation_failed, or a more specific code the 400
      // response documents (a secret's length is webhook_secret_invalid), naming the field.
      const codes400: string[] = o.op.responses['400'].content['application/json'].schema.properties.error.properties.code.enum;
      for (const [field, propSchema] of Object.entries(properties)) {
        for (const value of violationsOf(resolve(propSchema))) {
          const res = await send(o, path, { ...base(), [field]: value });
          const shown = JSON.stringify(value).slice(0, 40);
          expect(res.status, `${label} with ${field}=${shown}: ${res.text}`).toBe(400);
          expect(res.body.error.param, `${label} with ${field}=${shown}`).toBe(field);
          expect(codes400, `${label} with ${field}=${shown}`).toContain(res.body.error.code);
        }
      }
      checked.push(label);
    }
    for (const [method, path] of [...CREATE_OPERATIONS, ['put', '/v1/partner/webhook']] as const) {
      expect(checked, 'operations checked against the emulator').toContain(`${method.toUpperCase()} ${mustFind(method, path).path}`);
    }
  });

  // Schemathesis found `0@com`: valid for `format: email` (RFC 5321 allows a one-label domain), refused
  // by the server (issue 38). The document now gives the server's rule as the field's pattern.
  it('an e-mail address the document accepts the server accepts, and one it refuses the server refuses', async () => {
    const ajv = new Ajv2020({ strict: false, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema(doc, 'svc');
    const { op } = mustFind('post', '/v1/partner/merchants');
    const validate = ajv.compile({ $ref: `svc#/paths/~1v1~1partner~1merchants/post/requestBody/content/application~1json/schema` });
    expect(resolve(op.requestBody.content['application/json'].schema).properties.email).toBeDefined();
    const agree = async (email: string) => {
      const body = { externalTenantId: `tenant-${ikey()}`, email, name: 'Example' };
      const res = await emu.call('POST', '/v1/partner/merchants', { key: emu.keys.test.partnerKey, idempotencyKey: ikey(), body });
      expect([201, 400], res.text).toContain(res.status);
      return { email, document: validate(body), server: res.status === 201 };
    };
    const listed = ['owner@example.com', 'a.b+c@example.co.uk', '0@com', 'user@localhost', 'a@b.c', 'x!y@example.com', 'a@example.123', '"q"@example.com'];
    for (const email of listed) {
      const r = await agree(email);
      expect(r.document, `${email}: the server ${r.server ? 'accepts' : 'refuses'} it`).toBe(r.server);
    }
    await fc.assert(
      fc.asyncProperty(fc.emailAddress(), async (email) => {
        const r = await agree(email);
        expect(r.document, `${email}: the server ${r.server ? 'accepts' : 'refuses'} it`).toBe(r.server);
      }),
      { numRuns: 60 },
    );
  });

  it('amount sent as a JSON number is refused, as the string type says', async () => {
    for (const [path, key, extra] of [
      ['/v1/invoices', emu.keys.test.merchantKey, {}],
      ['/v1/partner/invoices', emu.keys.test.partnerKey, { merchantId: emu.keys.test.merchantId }],
    ] as const) {
      const res = await emu.call('POST', path, { key, idempotencyKey: ikey(), body: { ...extra, amount: 10 } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'amount' });
    }
  });

  it('operations secured by bearer keys answer 401 without one', async () => {
    let count = 0;
    for (const o of operations()) {
      if (!o.op.security?.length) continue;
      const path = o.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const res = await emu.call(o.method.toUpperCase(), path, o.op.requestBody ? { body: {} } : {});
      expect(res.status, `${o.method.toUpperCase()} ${o.path}: ${res.text}`).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      count++;
    }
    expect(count).toBeGreaterThanOrEqual(INTERFACE_OPERATIONS.length + READ_EXTENSIONS.length);
  });

  it('an idempotent replay is the documented 200 with Idempotent-Replayed: true', async () => {
    const key = ikey();
    const body = { amount: '7.25' };
    const first = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: key, body });
    const again = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: key, body });
    const { op } = mustFind('post', '/v1/invoices');
    expect(Object.keys(op.responses)).toContain(String(first.status));
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(Object.keys(op.responses)).toContain(String(again.status));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});
