import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: the default import is its module.exports (the plugin itself, under Node's
// ESM and the bundle alike), and the plugin carries itself as `.default`, which is what the types know.
const addFormats: (ajv: Ajv2020) => unknown = addFormatsModule.default;

const DOC = 'openapi.json';

/** One place in a value that does not match its schema: `/addresses/0/networkId must be integer`. */
export interface SchemaProblem {
  /** A JSON pointer into the value (`''` for the value itself). */
  at: string;
  message: string;
}

export interface SchemaValidator {
  /** The problems of `value` against the schema at `pointer` (`#/components/schemas/Invoice`); empty when it matches. */
  validate(pointer: string, value: unknown): SchemaProblem[];
}

/**
 * JSON Schema 2020-12 (what OpenAPI 3.1 uses) over one document, with ajv: each schema is compiled
 * the first time a value is held to it, then kept. Formats (`uuid`, `date-time`, `uri`) are checked.
 */
export function schemaValidator(doc: object): SchemaValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, DOC);
  const compiled = new Map<string, ValidateFunction>();
  return {
    validate(pointer, value) {
      let validate = compiled.get(pointer);
      if (!validate) compiled.set(pointer, (validate = ajv.compile({ $ref: `${DOC}${pointer}` })));
      if (validate(value)) return [];
      return (validate.errors ?? []).slice(0, 5).map((e) => ({ at: e.instancePath, message: describe(e.message, e.params) }));
    },
  };
}

/** `#/paths/~1v1~1invoices/post`: a JSON pointer from its parts, escaped. */
export function pointer(...parts: string[]): string {
  return `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

/** ajv's message and what it found, short: a long list of allowed values is counted, not printed. */
function describe(message: string | undefined, params: Record<string, unknown> | undefined): string {
  const text = message ?? 'does not match';
  const allowed = params?.allowedValues;
  if (Array.isArray(allowed)) return allowed.length > 5 ? `${text} (${allowed.length} values)` : `${text}: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  if (!params || Object.keys(params).length === 0 || text.includes(String(Object.values(params)[0]))) return text;
  const detail = JSON.stringify(params);
  return `${text} ${detail.length > 120 ? `${detail.slice(0, 120)}…` : detail}`;
}
