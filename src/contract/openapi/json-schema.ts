import * as z from 'zod';

export type JsonSchema = Record<string, unknown>;

const SAFE_INTEGER = 9007199254740991;

/**
 * A zod schema as OpenAPI 3.1 JSON Schema. Named shapes (`.meta({ id })`) move to `components`
 * (`#/components/schemas/<id>`) through `into`; the schema itself is returned, as a reference when
 * it is named. zod's safe-integer bounds on every integer are dropped: they say nothing a reader needs.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', into: Record<string, JsonSchema>): JsonSchema {
  const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  const text = JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/');
  const json = tidy(JSON.parse(text)) as JsonSchema;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  for (const [name, def] of Object.entries(defs)) {
    const known = into[name];
    if (known && JSON.stringify(known) !== JSON.stringify(def)) throw new Error(`two different schemas are named ${name}`);
    into[name] = def;
  }
  return json;
}

function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  // zod writes its own regex beside a format it knows (uuid, date-time, email): the format says it.
  const formatted = typeof (node as { format?: unknown }).format === 'string';
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && formatted) continue;
    if (key === 'minimum' && value === -SAFE_INTEGER) continue;
    if (key === 'maximum' && value === SAFE_INTEGER) continue;
    out[key] = tidy(value);
  }
  return out;
}
