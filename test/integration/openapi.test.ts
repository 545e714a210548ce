/**
 * `GET /openapi.json` from a running emulator: valid OpenAPI 3.1 by an independent parser
 * (@readme/openapi-parser), faithful to the interface document and CONTRACT §3/§7 about what is an
 * extension (openapi-behaviour.test.ts checks it against what the emulator does).
 * Raw HTTP: `/openapi.json` is not an operation of the typed client.
 */
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type ApiResponse, type TestEmulator } from '../helpers/emulator.js';
import {
  CONTROL_OPERATIONS,
  CREATE_OPERATIONS,
  INTERFACE_DELIVERY_OPERATIONS,
  INTERFACE_OPERATIONS,
  type Json,
  openApiDoc,
  READ_EXTENSIONS,
  shape,
} from '../helpers/openapi-doc.js';

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

const { resolve, operations, find, mustFind, isExtension } = openApiDoc(() => doc);

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

  it('the control plane needs no API key, except the partner-scoped listener, tail streams and webhook chaos; the API names its key', () => {
    for (const o of operations()) {
      const label = `${o.method} ${o.path}`;
      // The listener, the deliveries stream and webhook chaos act for one partner: a partner key says which.
      const partnerScoped = /^\/__emulator\/(listener|deliveries|webhook-chaos)/.test(o.path);
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
