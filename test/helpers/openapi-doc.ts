/**
 * Reading an OpenAPI document in tests: the interface document's operations by kind, and lookups by
 * method and path shape (parameter names ignored), for the openapi*.test.ts files.
 */
import { expect } from 'vitest';

/** A parsed JSON document, walked freely. */
export type Json = any;
export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/** Interface document §4: the operations of the real service (not extensions). */
export const INTERFACE_OPERATIONS = [
  ['post', '/v1/partner/merchants'],
  ['post', '/v1/partner/invoices'],
  ['post', '/v1/invoices'],
  ['put', '/v1/partner/webhook'],
  ['get', '/v1/partner/webhook'],
] as const;
/** Interface document §4.6: also real operations, possibly not served yet. */
export const INTERFACE_DELIVERY_OPERATIONS = [
  ['get', '/v1/partner/webhook/deliveries'],
  ['get', '/v1/partner/webhook/deliveries/{}'],
  ['post', '/v1/partner/webhook/deliveries/{}/resend'],
] as const;
/** CONTRACT §3: the read endpoints, served as extensions. */
export const READ_EXTENSIONS = [
  ['get', '/v1/invoices/{}'],
  ['get', '/v1/invoices'],
  ['get', '/v1/partner/invoices/{}'],
  ['get', '/v1/partner/invoices'],
  ['get', '/v1/partner/merchants/{}'],
  ['get', '/v1/partner/merchants'],
] as const;
/** CONTRACT §7: the control plane served so far. */
export const CONTROL_OPERATIONS = [
  ['get', '/__emulator/health'],
  ['post', '/__emulator/reset'],
  ['get', '/__emulator/clock'],
  ['post', '/__emulator/clock/advance'],
  ['post', '/__emulator/partners'],
  ['post', '/__emulator/merchants/{}/keys'],
  ['get', '/__emulator/keys'],
  ['put', '/__emulator/merchants/{}/chains'],
] as const;
export const CREATE_OPERATIONS = INTERFACE_OPERATIONS.filter(([m]) => m === 'post');

/** Path templates compared without parameter names: `/v1/invoices/{invoiceId}` → `/v1/invoices/{}`. */
export const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

export interface Operation {
  method: string;
  path: string;
  op: Json;
}

/** Lookups in one document. */
export function openApiDoc(doc: () => Json) {
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
        .reduce((acc: Json, key) => (acc === undefined ? undefined : acc[key]), doc());
      expect(n, `unresolvable $ref ${ref}`).toBeDefined();
    }
    return n;
  }

  function operations(): Operation[] {
    const out: Operation[] = [];
    for (const [path, item] of Object.entries<Json>(doc().paths)) {
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

  const isExtension = (o: Operation) => o.op['x-svc-extension'] === true || doc().paths[o.path]['x-svc-extension'] === true;
  return { resolve, operations, find, mustFind, isExtension };
}
