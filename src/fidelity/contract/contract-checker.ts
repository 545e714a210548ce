/**
 * Holds requests and answers to the OpenAPI document svc builds from its contract (the one
 * `GET /openapi.json` serves): what `svc proxy` reports as violations, and what `svc verify`'s
 * shape checks use. The integration suite holds every answer svc sends to the same document
 * (test/helpers/response-checker.ts), so svc itself is clean by construction; a deployment that
 * departs from the contract is not.
 */
import { ERRORS, isErrorCode } from '../../contract/errors.js';
import { buildOpenApi } from '../../contract/openapi/build.js';
import { VERSION } from '../../version.js';
import { at, isRecord, parseJson, str } from '../json.js';
import type { ExchangeRequest, ExchangeResponse, Violation } from './exchange.js';
import { operationFinder, type OperationLookup } from './operations.js';
import { checkRequest } from './request-rules.js';
import { pointer, schemaValidator, type SchemaValidator } from './schema-validator.js';

export interface ContractChecker {
  /** The contract's operation for a method and path (null: no such path). */
  operationOf(method: string, path: string): OperationLookup;
  /** What is wrong with a request, by the document (its operation, key, Idempotency-Key, query, body). */
  checkRequest(request: ExchangeRequest): Violation[];
  /** What is wrong with an answer to `request`: status, required headers, content type, body, error code. */
  checkResponse(request: Pick<ExchangeRequest, 'method' | 'path'>, response: ExchangeResponse): Violation[];
  /** Problems of a value against a schema of the document's components (`WebhookEvent`, `Error`). */
  checkSchema(name: string, value: unknown): { at: string; message: string }[];
}

/** Builds a checker over svc's own document (the default) or another OpenAPI 3.1 document built the same way. */
export function createContractChecker(doc: object = buildOpenApi(VERSION)): ContractChecker {
  const validator = schemaValidator(doc);
  const find = operationFinder();
  const operationAt = (method: string, path: string) => {
    const found = find(method, path);
    if (!found || !('id' in found)) return null;
    const template = templateOf(doc, found.id);
    return template ? { ...found, template, method: method.toLowerCase(), op: at(doc, 'paths', template, method.toLowerCase()) } : null;
  };
  return {
    operationOf: find,
    checkRequest: (request) => {
      const found = find(request.method, request.path);
      if (!found) return [{ where: 'request', path: '/path', message: `no operation of the document has the path ${request.path}` }];
      if (!('id' in found))
        return [
          { where: 'request', path: '/method', message: `${request.method} is not an operation of ${request.path} (it has ${found.allowed.join(', ')})` },
        ];
      const op = operationAt(request.method, request.path);
      return op ? checkRequest(validator, op, found.params, request) : [];
    },
    checkResponse: (request, response) => firstPerPlace(checkResponse(validator, doc, operationAt(request.method, request.path), response)),
    checkSchema: (name, value) => validator.validate(pointer('components', 'schemas', name), value),
  };
}

/** The document's path template of an operation id. */
function templateOf(doc: object, id: string): string | undefined {
  const paths = at(doc, 'paths');
  if (!isRecord(paths)) return undefined;
  for (const [template, item] of Object.entries(paths)) {
    if (isRecord(item) && Object.values(item).some((op) => str(op, 'operationId') === id)) return template;
  }
  return undefined;
}

/** Follows a local `$ref` (`#/components/…`) to what it names. */
export function resolveRef(doc: object, node: unknown): unknown {
  const ref = str(node, '$ref');
  if (ref === undefined) return node;
  return at(
    doc,
    ...ref
      .slice(2)
      .split('/')
      .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~')),
  );
}

const response = (path: string, message: string): Violation => ({ where: 'response', path, message });

function checkResponse(
  validator: SchemaValidator,
  doc: object,
  found: { template: string; method: string; op: unknown } | null,
  r: ExchangeResponse,
): Violation[] {
  const out: Violation[] = [];
  if (r.headers['request-id'] === undefined) out.push(response('/headers/request-id', 'Request-Id is missing (every response carries one)'));
  const type = (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const json = type === 'application/json' && r.body !== '' ? parseJson(r.body) : undefined;
  if (type === 'application/json' && r.body !== '' && json === undefined) out.push(response('/body', `is not JSON: ${r.body.slice(0, 80)}`));
  const schema = (ref: string, value: unknown, where: string) => {
    for (const p of validator.validate(ref, value)) out.push(response(`${where}${p.at}`, p.message));
  };
  // An answer a test's fault injected (svc's CONTRACT §9) is held to the operation's `default` response.
  if (r.headers['svc-fault'] !== undefined && r.status >= 400) {
    if (json !== undefined) schema(pointer('components', 'responses', 'InjectedFault', 'content', 'application/json', 'schema'), json, '/body');
    return out;
  }
  if (r.status >= 400 && isRecord(json) && 'error' in json) out.push(...errorCode(json, r.status));
  if (!found) {
    // No operation answered (an unknown route, a wrong method): errors still have the contract's shape.
    if (r.status >= 400 && json !== undefined) schema(pointer('components', 'schemas', 'Error'), json, '/body');
    return out;
  }
  const declared = at(found.op, 'responses', String(r.status));
  const documented = resolveRef(doc, declared);
  if (!isRecord(documented)) {
    const statuses = Object.keys(at(found.op, 'responses') ?? {}).filter((s) => s !== 'default');
    out.push(response('/status', `${r.status} is not a documented answer of this operation (documented: ${statuses.join(', ')})`));
    return out;
  }
  for (const [name, header] of Object.entries(at(documented, 'headers') ?? {})) {
    if (at(resolveRef(doc, header), 'required') === true && r.headers[name.toLowerCase()] === undefined) {
      out.push(response(`/headers/${name.toLowerCase()}`, `${name} is required on a ${r.status} and missing`));
    }
  }
  const content = at(documented, 'content');
  const types = isRecord(content) ? Object.keys(content) : [];
  if (!type) {
    if (r.body !== '') out.push(response('/headers/content-type', 'a body without a Content-Type'));
    else if (types.length) out.push(response('/body', `no body; the document declares ${types.join(', ')}`));
    return out;
  }
  if (!types.includes(type)) {
    out.push(response('/headers/content-type', `${type} is not documented here (documented: ${types.join(', ') || 'no body'})`));
    return out;
  }
  if (type !== 'application/json' || json === undefined) return out;
  // A shared response ($ref to components.responses) is validated where it is defined.
  const base = str(declared, '$ref')?.slice(1) ?? pointer('paths', found.template, found.method, 'responses', String(r.status)).slice(1);
  const before = out.length;
  schema(`#${base}/content/application~1json/schema`, json, '/body');
  // A delivery's payload is the exact envelope sent (CONTRACT §5): it must be a WebhookEvent.
  if (out.length === before && str(content, type, 'schema', '$ref') === '#/components/schemas/DeliveryDetail') {
    const payload = str(json, 'payload');
    const envelope = payload === undefined ? undefined : parseJson(payload);
    if (payload !== undefined && envelope === undefined) out.push(response('/body/payload', 'is not JSON'));
    else if (envelope !== undefined) schema(pointer('components', 'schemas', 'WebhookEvent'), envelope, '/body/payload');
  }
  return out;
}

/** One violation per place: the catalog and the schema both refusing an unknown code say one thing. */
function firstPerPlace(violations: Violation[]): Violation[] {
  const seen = new Set<string>();
  return violations.filter((v) => !seen.has(v.path) && seen.add(v.path));
}

/** The code is one of the catalog's, with the status the catalog gives it. */
function errorCode(json: Record<string, unknown>, status: number): Violation[] {
  const code = str(json, 'error', 'code');
  if (code === undefined) return [response('/body/error/code', 'is missing')];
  if (!isErrorCode(code)) return [response('/body/error/code', `${JSON.stringify(code)} is not one of the contract's error codes`)];
  if (ERRORS[code].status !== status) return [response('/status', `${code} is a ${ERRORS[code].status} in the contract, answered as ${status}`)];
  return [];
}
