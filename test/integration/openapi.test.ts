/**
 * `GET /openapi.json` from a running emulator: valid OpenAPI 3.1 by an independent parser
 * (@readme/openapi-parser), faithful to the interface document and CONTRACT §3/§7 about what is an
 * extension, and consistent with what the emulator actually does with request bodies.
 */
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type ApiResponse, type TestEmulator } from '../helpers/emulator.js';

type Json = any;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/** Interface document §4: the operations of the real service (not extensions). */
const INTERFACE_OPERATIONS = [
  ['post', '/v1/partner/merchants'],
  ['post', '/v1/partner/invoices'],
  ['post', '/v1/invoices'],
  ['put', '/v1/partner/webhook'],
  ['get', '/v1/partner/webhook'],
] as const;
/** Interface document §4.6: also real operations, possibly not served yet. */
const INTERFACE_DELIVERY_OPERATIONS = [
  ['get', '/v1/partner/webhook/deliveries'],
  ['get', '/v1/partner/webhook/deliveries/{}'],
  ['post', '/v1/partner/webhook/deliveries/{}/resend'],
] as const;
/** CONTRACT §3: the read endpoints, served as extensions. */
const READ_EXTENSIONS = [
  ['get', '/v1/invoices/{}'],
  ['get', '/v1/invoices'],
  ['get', '/v1/partner/invoices/{}'],
  ['get', '/v1/partner/invoices'],
  ['get', '/v1/partner/merchants/{}'],
  ['get', '/v1/partner/merchants'],
] as const;
/** CONTRACT §7: the control plane served so far. */
const CONTROL_OPERATIONS = [
  ['get', '/__emulator/health'],
  ['post', '/__emulator/reset'],
  ['get', '/__emulator/clock'],
  ['post', '/__emulator/clock/advance'],
  ['post', '/__emulator/partners'],
  ['post', '/__emulator/merchants/{}/keys'],
  ['get', '/__emulator/keys'],
  ['put', '/__emulator/merchants/{}/chains'],
] as const;
const CREATE_OPERATIONS = INTERFACE_OPERATIONS.filter(([m]) => m === 'post');

/** Path templates compared without parameter names: `/v1/invoices/{invoiceId}` → `/v1/invoices/{}`. */
const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

let emu: TestEmulator;
let raw: ApiResponse;
let doc: Json;

beforeAll(async () => {
  emu = await startTestEmulator();
  raw = await emu.call('GET', '/openapi.json');
  doc = raw.body;
});
afterAll(async () => {
  await emu?.stop();
});

/** Follows a local `$ref` (`#/components/…`), as many times as needed. */
function resolve(node: Json): Json {
  let n = node;
  for (let i = 0; n && typeof n === 'object' && typeof n.$ref === 'string' && i < 20; i++) {
    const ref: string = n.$ref;
    expect(ref.startsWith('#/'), `only local refs are expected, got ${ref}`).toBe(true);
    n = ref
      .slice(2)
      .split('/')
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((acc: Json, key) => (acc === undefined ? undefined : acc[key]), doc);
    expect(n, `unresolvable $ref ${ref}`).toBeDefined();
  }
  return n;
}

interface Operation {
  method: string;
  path: string;
  op: Json;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ method, path, op: item[method] });
  }
  return out;
}

function find(method: string, pathShape: string): Operation | undefined {
  return operations().find((o) => o.method === method && shape(o.path) === pathShape);
}

function mustFind(method: string, pathShape: string): Operation {
  const found = find(method, pathShape);
  expect(found, `${method.toUpperCase()} ${pathShape} is missing from the OpenAPI document`).toBeDefined();
  return found!;
}

const isExtension = (o: Operation) => o.op['x-svc-extension'] === true || doc.paths[o.path]['x-svc-extension'] === true;

describe('the document', () => {
  it('is served as JSON', () => {
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    expect(raw.headers.get('request-id')).toMatch(/\S/);
    expect(typeof doc).toBe('object');
  });

  it('is OpenAPI 3.1', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
  });

  it('validates with @readme/openapi-parser', async () => {
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it('every $ref in it resolves inside the document', () => {
    const refs = new Set<string>();
    const walk = (n: Json) => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === 'object') {
        if (typeof n.$ref === 'string') refs.add(n.$ref);
        Object.values(n).forEach(walk);
      }
    };
    walk(doc);
    expect(refs.size).toBeGreaterThan(0);
    const broken = [...refs].filter((ref) => {
      const target = ref.startsWith('#/')
        ? ref
            .slice(2)
            .split('/')
            .reduce((acc: Json, key) => (acc === undefined ? undefined : acc[key]), doc)
        : undefined;
      return target === undefined;
    });
    expect(broken, `refs that point nowhere: ${broken.join(', ')}`).toEqual([]);
  });

  it('names the running emulator as its server, and two bearer schemes: partner keys and merchant keys', () => {
    expect(doc.servers?.[0]?.url).toBe(emu.url);
    expect(doc.components.securitySchemes.partnerKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.partnerKey.description).toContain('pt_test_');
    expect(doc.components.securitySchemes.merchantKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.merchantKey.description).toContain('test_');
    // No default: each operation names the key it takes.
    expect(doc.security).toBeUndefined();
    for (const o of operations()) expect(o.op.security, `${o.method} ${o.path}`).toBeDefined();
  });
});

describe('interface operations and extensions', () => {
  it.each(INTERFACE_OPERATIONS)('%s %s is present and not marked as an extension', (method, path) => {
    const o = mustFind(method, path);
    expect(o.op['x-svc-extension']).toBeUndefined();
    expect(doc.paths[o.path]['x-svc-extension']).toBeUndefined();
  });

  it('the delivery operations of interface §4.6, when served, are not marked as extensions', () => {
    for (const [method, path] of INTERFACE_DELIVERY_OPERATIONS) {
      const o = find(method, path);
      if (o) expect(isExtension(o), `${method} ${path}`).toBe(false);
    }
    // The check above must have something to look at in the document.
    expect(operations().length).toBeGreaterThan(INTERFACE_OPERATIONS.length);
  });

  it.each(READ_EXTENSIONS)('%s %s (CONTRACT §3) is marked x-svc-extension: true', (method, path) => {
    expect(mustFind(method, path).op['x-svc-extension']).toBe(true);
  });

  it.each(CONTROL_OPERATIONS)('%s %s (CONTRACT §7) is present and marked x-svc-extension: true', (method, path) => {
    expect(mustFind(method, path).op['x-svc-extension']).toBe(true);
  });

  it('every /__emulator/ operation, and every operation the interface document does not list, is an extension', () => {
    const interfaceShapes = new Set([...INTERFACE_OPERATIONS, ...INTERFACE_DELIVERY_OPERATIONS].map(([m, p]) => `${m} ${p}`));
    const all = operations();
    const control = all.filter((o) => o.path.startsWith('/__emulator/'));
    expect(control.length).toBeGreaterThanOrEqual(CONTROL_OPERATIONS.length);
    for (const o of control) expect(o.op['x-svc-extension'], `${o.method} ${o.path}`).toBe(true);
    const unmarked = all.filter((o) => !interfaceShapes.has(`${o.method} ${shape(o.path)}`) && o.op['x-svc-extension'] !== true);
    expect(unmarked.map((o) => `${o.method.toUpperCase()} ${o.path}`)).toEqual([]);
  });

  it('the control plane needs no API key, except the partner-scoped listener and tail streams; the API names its key', () => {
    for (const o of operations()) {
      const label = `${o.method} ${o.path}`;
      // The listener and deliveries streams act for one partner: a partner key says which.
      const partnerScoped = /^\/__emulator\/(listener|deliveries)/.test(o.path);
      if (o.path.startsWith('/__emulator/')) expect(o.op.security, label).toEqual(partnerScoped ? [{ partnerKey: [] }] : []);
      else if (o.path.startsWith('/v1/partner/')) expect(o.op.security, label).toEqual([{ partnerKey: [] }]);
      else if (o.path.startsWith('/v1/test_helpers/')) expect(o.op.security, label).toEqual([{ partnerKey: [] }, { merchantKey: [] }]);
      else if (o.path.startsWith('/v1/')) expect(o.op.security, label).toEqual([{ merchantKey: [] }]);
    }
  });
});

describe('create operations', () => {
  it.each(CREATE_OPERATIONS)('%s %s documents a required Idempotency-Key header (at most 255)', (method, path) => {
    const { op } = mustFind(method, path);
    const params = (op.parameters ?? []).map(resolve);
    const header = params.find((p: Json) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
    expect(header, 'Idempotency-Key header parameter').toBeDefined();
    expect(header.required).toBe(true);
    expect(resolve(header.schema)).toMatchObject({ type: 'string', maxLength: 255 });
  });

  it.each(CREATE_OPERATIONS)('%s %s documents 201 (created) and 200 (idempotent replay) with the same body', (method, path) => {
    const { op } = mustFind(method, path);
    const created = resolve(op.responses['201']);
    const replay = resolve(op.responses['200']);
    expect(created, '201 response').toBeDefined();
    expect(replay, '200 response').toBeDefined();
    const createdSchema = created.content?.['application/json']?.schema;
    expect(createdSchema).toBeDefined();
    expect(replay.content?.['application/json']?.schema).toEqual(createdSchema);
    expect(Object.keys(replay.headers ?? {}).map((h) => h.toLowerCase())).toContain('idempotent-replayed');
  });

  it.each([['/v1/partner/invoices'], ['/v1/invoices']])('POST %s requires amount, as a string', (path) => {
    const { op } = mustFind('post', path);
    expect(op.requestBody.required).toBe(true);
    const schema = resolve(op.requestBody.content['application/json'].schema);
    expect(schema.type).toBe('object');
    expect(schema.required).toContain('amount');
    expect(resolve(schema.properties.amount).type).toBe('string');
    expect(resolve(schema.properties.networkId).type).toBe('integer');
    expect(resolve(schema.properties.token).type).toBe('string');
    if (path === '/v1/partner/invoices') {
      expect(schema.required).toContain('merchantId');
      expect(resolve(schema.properties.merchantId)).toMatchObject({ type: 'string', format: 'uuid' });
    } else {
      expect(schema.properties.merchantId).toBeUndefined();
    }
    expect(schema.properties.environment).toBeUndefined();
  });

  it('create-merchant requires externalTenantId, email and name and shows no fee or environment field', () => {
    const schema = resolve(mustFind('post', '/v1/partner/merchants').op.requestBody.content['application/json'].schema);
    expect([...schema.required].sort()).toEqual(['email', 'externalTenantId', 'name']);
    expect(Object.keys(schema.properties).filter((k) => /fee|environment/i.test(k))).toEqual([]);
  });

  it('the webhook PUT requires url and documents secret and enabled', () => {
    const schema = resolve(mustFind('put', '/v1/partner/webhook').op.requestBody.content['application/json'].schema);
    expect(schema.required).toEqual(['url']);
    expect(resolve(schema.properties.secret).type).toBe('string');
    expect(resolve(schema.properties.enabled).type).toBe('boolean');
  });
});

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
      const schema = resolve(o.op.requestBody.content['application/json'].schema);
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
