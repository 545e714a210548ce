import * as z from 'zod';

export type JsonSchema = Record<string, unknown>;

const SAFE_INTEGER = 9007199254740991;

/**
 * A zod schema as OpenAPI 3.1 JSON Schema. Named shapes (`.meta({ id })`) move to `components`
 * (`#/components/schemas/<id>`) through `into`; the schema itself is returned, as a reference when
 * it is named. zod's safe-integer bounds on every integer are dropped: they say nothing a reader needs.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', into: Record<string, JsonSchema>): JsonSchema {
  const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' });
  const text = JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/');
  const json = objectOf(tidy(JSON.parse(text)), 'a JSON Schema');
  delete json.$schema;
  const defs = json.$defs === undefined ? {} : objectOf(json.$defs, '$defs');
  delete json.$defs;
  for (const [name, value] of Object.entries(defs)) {
    const def = objectOf(value, `$defs.${name}`);
    const known = into[name];
    if (known && JSON.stringify(known) !== JSON.stringify(def)) throw new Error(`two different schemas are named ${name}`);
    into[name] = def;
  }
  return json;
}

/** JSON objects are what zod's JSON Schema is made of; anything else is a bug worth a clear message. */
export const isJsonObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

export function objectOf(value: unknown, what: string): JsonSchema {
  if (!isJsonObject(value)) throw new Error(`expected ${what} to be a JSON object`);
  return value;
}

function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  // zod writes its own regex beside a format it knows (uuid, date-time, email): the format says it,
  // except for `email`, whose format (RFC 5321: `0@com`, `a@b.c`) admits what the server refuses.
  // There the pattern stays: it is exactly the server's rule (issue 38, found by Schemathesis).
  const format = Reflect.get(node, 'format');
  const formatted = typeof format === 'string' && format !== 'email';
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && formatted) continue;
    if (key === 'minimum' && value === -SAFE_INTEGER) continue;
    if (key === 'maximum' && value === SAFE_INTEGER) continue;
    out[key] = tidy(value);
  }
  return out;
}
