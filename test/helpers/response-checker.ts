/**
 * Checks a response the emulator sent against its OpenAPI document: the status is one the
 * operation declares, the headers it marks required are there, the content type is declared, and a
 * JSON body validates (ajv, JSON Schema 2020-12, as OpenAPI 3.1 uses), error codes included. Responses
 * no operation answered (pages, 404, 405, refused hosts, malformed HTTP) must still be
 * contract-shaped errors when they are errors. A delivery's `payload` must be a WebhookEvent.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ERRORS, type ErrorCode } from '../../src/contract/errors.js';
import type { ObservedResponse } from '../../src/server/response-observer.js';

type Json = any;
// ajv-formats is CommonJS with a default export: under NodeNext its default is the module object.
const addFormats = ((addFormatsModule as Json).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
const DOC = 'openapi.json';
const METHODS = ['get', 'put', 'post', 'delete'];

const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

export interface ResponseChecker {
  /** Checks one response; a problem is kept for `take`. */
  check(response: ObservedResponse): void;
  /** The problems found since the last call, and forgets them. */
  take(): string[];
  /** How many responses were checked, in all and by operation (`-` for none). */
  readonly counts: { total: number; byOperation: Map<string, number> };
}

export function createResponseChecker(doc: Json): ResponseChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, DOC);
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (ref: string) => {
    let v = validators.get(ref);
    if (!v) validators.set(ref, (v = ajv.compile({ $ref: `${DOC}${ref}` })));
    return v;
  };
  const resolve = (node: Json): Json => {
    if (!node?.$ref) return node;
    return (node.$ref as string)
      .slice(2)
      .split('/')
      .reduce((acc: Json, key) => acc?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
  };

  const operations = new Map<string, { path: string; method: string; op: Json }>();
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]) operations.set(item[method].operationId, { path, method, op: item[method] });
  }

  let problems: string[] = [];
  const counts = { total: 0, byOperation: new Map<string, number>() };

  function validate(ref: string, value: unknown, what: string, label: string): boolean {
    const v = validatorAt(ref);
    if (v(value)) return true;
    const errors = (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    problems.push(`${label}: ${what} does not match the document: ${errors.slice(0, 5).join('; ')}\n  body: ${JSON.stringify(value).slice(0, 400)}`);
    return false;
  }

  function check(r: ObservedResponse): void {
    const label = `${r.method} ${r.path} → ${r.status}${r.operationId ? ` (${r.operationId})` : ''}`;
    counts.total++;
    counts.byOperation.set(r.operationId ?? '-', (counts.byOperation.get(r.operationId ?? '-') ?? 0) + 1);
    if (!r.headers['request-id']) problems.push(`${label}: no Request-Id header`);
    const type = String(r.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    const json = type === 'application/json' && r.body ? parse(r.body, label) : undefined;
    // An answer a test's fault injected (CONTRACT §9) has the fault's status and code: it is held to
    // the operation's `default` response (InjectedFault), not to the catalog. A delay's answer is
    // the operation's own, checked as usual.
    const injected = r.headers['svc-fault'] !== undefined && r.status >= 400;
    if (injected) {
      if (json !== undefined)
        validate(pointer('components', 'responses', 'InjectedFault', 'content', 'application/json', 'schema'), json, 'the injected error', label);
      return;
    }
    if (json?.error !== undefined && r.status >= 400) checkErrorCode(json, r.status, label);
    if (!r.operationId) {
      // Not an operation: a page, the document itself, or a request no route took. Errors still
      // have the contract's shape.
      if (r.status >= 400 && json !== undefined) validate(pointer('components', 'schemas', 'Error'), json, 'the error body', label);
      return;
    }
    const found = operations.get(r.operationId);
    if (!found) {
      problems.push(`${label}: operation ${r.operationId} is not in the document`);
      return;
    }
    const response = resolve(found.op.responses[String(r.status)]);
    if (!response) {
      problems.push(`${label}: status ${r.status} is not documented (documented: ${Object.keys(found.op.responses).join(', ')})`);
      return;
    }
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      if (resolve(header).required && r.headers[name.toLowerCase()] === undefined) problems.push(`${label}: required header ${name} is missing`);
    }
    const content = response.content ?? {};
    if (!type) {
      if (r.body) problems.push(`${label}: a body without a Content-Type`);
      else if (Object.keys(content).length) problems.push(`${label}: no body, but the document declares ${Object.keys(content).join(', ')}`);
      return;
    }
    if (!content[type]) {
      problems.push(`${label}: Content-Type ${type} is not documented (documented: ${Object.keys(content).join(', ') || 'no body'})`);
      return;
    }
    if (type === 'application/json' && !r.body) problems.push(`${label}: an empty application/json body`);
    if (type !== 'application/json' || json === undefined) return;
    const base = pointer('paths', found.path, found.method, 'responses', String(r.status));
    // A shared response ($ref to components.responses) is validated where it is defined.
    const at = found.op.responses[String(r.status)].$ref ? (found.op.responses[String(r.status)].$ref as string).slice(1) : base.slice(1);
    const schemaRef = `#${at}/content/application~1json/schema`;
    if (!validate(schemaRef, json, 'the body', label)) return;
    // A delivery's payload is the exact envelope sent (CONTRACT §5): it must be a WebhookEvent.
    if (content[type].schema?.$ref === '#/components/schemas/DeliveryDetail' && typeof json.payload === 'string') {
      const envelope = parse(json.payload, `${label} payload`);
      if (envelope !== undefined) validate(pointer('components', 'schemas', 'WebhookEvent'), envelope, 'the delivered payload', label);
    }
  }

  function checkErrorCode(json: Json, status: number, label: string) {
    const code = json?.error?.code;
    const entry = typeof code === 'string' && Object.hasOwn(ERRORS, code) ? ERRORS[code as ErrorCode] : undefined;
    if (!entry) problems.push(`${label}: error code ${JSON.stringify(code)} is not in the catalog (src/contract/errors.ts)`);
    else if (entry.status !== status) problems.push(`${label}: ${code} is a ${entry.status} in the catalog, sent as ${status}`);
  }

  function parse(text: string, label: string): Json {
    try {
      return JSON.parse(text);
    } catch {
      problems.push(`${label}: the body is not JSON: ${text.slice(0, 200)}`);
      return undefined;
    }
  }

  return {
    check: (r) => {
      try {
        check(r);
      } catch (error) {
        problems.push(`${r.method} ${r.path}: the checker failed: ${(error as Error).stack}`);
      }
    },
    take: () => {
      const out = problems;
      problems = [];
      return out;
    },
    counts,
  };
}
