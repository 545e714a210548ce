import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ErrorCodeOf, ParamsOf, SuccessOf } from '../../src/contract/index.js';
import { errorCodesOf } from '../../src/contract/operation.js';
import { OPERATIONS } from '../../src/contract/operations/index.js';
import type { PartnerInvoice } from '../../src/contract/schemas/responses.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('error codes: the run-time list and the type agree', () => {
  // Each case takes a different branch of the shared codes (key kind, body, query, idempotency,
  // test-only, control plane, reads and writes); tsc checks the type side, vitest the run-time side.
  const CREATE = [
    ...['invalid_request', 'invalid_json', 'environment_not_allowed', 'host_not_allowed', 'request_timeout', 'payload_too_large'],
    ...['unsupported_media_type', 'headers_too_large', 'internal_error', 'unauthorized', 'forbidden_key_type', 'validation_failed'],
    ...['idempotency_key_required', 'idempotency_key_invalid', 'idempotency_key_in_progress', 'idempotency_key_reused'],
    ...['database_busy', 'storage_full', 'merchant_not_found', 'route_not_available', 'database_unavailable'],
  ] as const;
  const PAY = [
    ...['invalid_request', 'invalid_json', 'environment_not_allowed', 'host_not_allowed', 'request_timeout', 'payload_too_large'],
    ...['unsupported_media_type', 'headers_too_large', 'internal_error', 'unauthorized', 'test_mode_only', 'validation_failed'],
    ...['idempotency_key_invalid', 'idempotency_key_in_progress', 'idempotency_key_reused', 'database_busy', 'storage_full'],
    ...['invoice_not_found', 'route_not_available', 'database_unavailable'],
  ] as const;
  const HEALTH = [
    ...['invalid_request', 'invalid_json', 'environment_not_allowed', 'host_not_allowed', 'request_timeout', 'payload_too_large'],
    ...['unsupported_media_type', 'headers_too_large', 'internal_error', 'control_plane_forbidden'],
  ] as const;
  const REGISTER = [
    ...['invalid_request', 'invalid_json', 'environment_not_allowed', 'host_not_allowed', 'request_timeout', 'payload_too_large'],
    ...['unsupported_media_type', 'headers_too_large', 'internal_error', 'unauthorized', 'forbidden_key_type', 'control_plane_forbidden'],
    ...['cross_site_request', 'validation_failed', 'database_busy', 'storage_full', 'database_unavailable'],
  ] as const;

  it('createPartnerInvoice: a partner create with a body and a required key', () => {
    expect(errorCodesOf(OPERATIONS.createPartnerInvoice).sort()).toEqual([...CREATE].sort());
    expectTypeOf<ErrorCodeOf<'createPartnerInvoice'>>().toEqualTypeOf<(typeof CREATE)[number]>();
  });

  it('createTestPayment: either key, test keys only, an optional Idempotency-Key', () => {
    expect(errorCodesOf(OPERATIONS.createTestPayment).sort()).toEqual([...PAY].sort());
    expectTypeOf<ErrorCodeOf<'createTestPayment'>>().toEqualTypeOf<(typeof PAY)[number]>();
  });

  it('getHealth: the control plane, no key, a read', () => {
    expect(errorCodesOf(OPERATIONS.getHealth).sort()).toEqual([...HEALTH].sort());
    expectTypeOf<ErrorCodeOf<'getHealth'>>().toEqualTypeOf<(typeof HEALTH)[number]>();
  });

  it('registerListener: the control plane with a partner key, a write', () => {
    expect(errorCodesOf(OPERATIONS.registerListener).sort()).toEqual([...REGISTER].sort());
    expectTypeOf<ErrorCodeOf<'registerListener'>>().toEqualTypeOf<(typeof REGISTER)[number]>();
  });

  it('parameters and bodies come from the operation', () => {
    expectTypeOf<ParamsOf<'confirmTestPayment'>>().toEqualTypeOf<{ id: string; paymentId: string }>();
    expectTypeOf<SuccessOf<'createPartnerInvoice'>>().toEqualTypeOf<PartnerInvoice>();
  });
});

/** The modules a file imports at run time (static imports and re-exports; not `import type`, not `import()`). */
function runtimeImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) out.push(m[1]!);
  return out;
}

/** Every module reachable from `entry` through run-time imports: our files by path, packages by name. */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of runtimeImports(file)) {
      if (spec.startsWith('.')) walk(path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'));
      else seen.add(spec.startsWith('node:') ? spec : spec.split('/')[0]!);
    }
  };
  walk(path.join(ROOT, entry));
  return seen;
}

const rel = (set: Set<string>) => [...set].map((f) => (path.isAbsolute(f) ? path.relative(ROOT, f) : f));

describe('what loads what', () => {
  it('the contract’s entry loads no zod (the CLI and the client read it; zod costs ~100 ms to load)', () => {
    const loaded = rel(reachable('src/contract/index.ts'));
    expect(loaded).toContain('src/contract/operations/index.ts');
    expect(loaded).not.toContain('zod');
  });

  it('starting the emulator loads no zod: the request schemas load beside the listen, no response schema nor OpenAPI builder with them', () => {
    const started = rel(reachable('src/server/start.ts'));
    expect(started).toContain('src/server/validation/schemas.ts');
    expect(started).not.toContain('zod');
    expect(started).not.toContain('src/contract/schemas/requests.ts');
    // What loadSchemas() imports while the server binds (src/server/validation/schemas.ts).
    const schemas = rel(reachable('src/server/validation/loaded-schemas.ts'));
    expect(schemas).toContain('src/contract/schemas/requests.ts');
    expect(schemas.filter((f) => /contract\/(schemas\/(responses|resources|emulator|events)|openapi\/)/.test(f))).toEqual([]);
  });
});
