import { at, isRecord, parseJson, str } from '../json.js';
import type { ExchangeRequest, Violation } from './exchange.js';
import { pointer, type SchemaValidator } from './schema-validator.js';

const request = (path: string, message: string): Violation => ({ where: 'request', path, message });

/**
 * A request held to its operation in the document: a key when the operation is secured, the
 * `Idempotency-Key` it declares, path and query parameters by their schemas, and a JSON body that
 * matches the request schema. Unknown body fields are not violations (CONTRACT §2 ignores them).
 */
export function checkRequest(
  validator: SchemaValidator,
  found: { template: string; method: string; op: unknown },
  params: Record<string, string>,
  r: ExchangeRequest,
): Violation[] {
  const { op } = found;
  const out: Violation[] = [];
  const security = at(op, 'security');
  if (Array.isArray(security) && security.length > 0 && !/^Bearer +\S/i.test(r.headers.authorization ?? '')) {
    out.push(request('/headers/authorization', 'the operation needs a key (Authorization: Bearer …) and none was sent'));
  }
  const query = new URLSearchParams(r.query);
  const declared = at(op, 'parameters');
  for (const [i, param] of (Array.isArray(declared) ? declared : []).entries()) {
    const name = str(param, 'name') ?? '';
    const where = str(param, 'in');
    const raw =
      where === 'path' ? params[name] : where === 'query' ? (query.get(name) ?? undefined) : where === 'header' ? r.headers[name.toLowerCase()] : undefined;
    const place = where === 'header' ? `/headers/${name.toLowerCase()}` : `/${where}/${name}`;
    if (raw === undefined) {
      if (at(param, 'required') === true) out.push(request(place, `${name} is required`));
      continue;
    }
    const ref = `${pointer('paths', found.template, found.method, 'parameters', String(i))}/schema`;
    for (const p of validator.validate(ref, typed(raw, at(param, 'schema')))) out.push(request(place, `${JSON.stringify(raw)} ${p.message}`));
  }
  const body = at(op, 'requestBody');
  const text = r.body ?? '';
  if (!isRecord(body)) return out;
  if (text === '') {
    if (at(body, 'required') === true) out.push(request('/body', 'the operation needs a JSON body'));
    return out;
  }
  const type = (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    out.push(request('/headers/content-type', `${type || 'no Content-Type'}; the body must be application/json`));
    return out;
  }
  const json = parseJson(text);
  if (json === undefined) {
    out.push(request('/body', 'is not JSON'));
    return out;
  }
  const ref = str(body, 'content', 'application/json', 'schema', '$ref');
  if (ref) for (const p of validator.validate(ref, json)) out.push(request(`/body${p.at}`, p.message));
  return out;
}

/** A query or path value as its schema's type: `limit=5` is the integer 5 when the schema says integer. */
function typed(raw: string, schema: unknown): unknown {
  const type = at(schema, 'type');
  const types = Array.isArray(type) ? type : [type];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}
