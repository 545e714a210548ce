import * as z from 'zod';

/**
 * Keys of `value` that `schema` does not know, as dotted paths. The schema strips them silently;
 * listing them lets the CLI warn about a typo (`prot` for `port`) instead of ignoring it.
 */
export function unknownKeys(schema: z.core.SomeType, value: unknown, prefix = ''): string[] {
  let inner = unwrap(schema);
  // A setting of several forms (`chains: true` or `chains: { test, live }`): an object is checked against the object form.
  if (inner instanceof z.ZodUnion && isPlainObject(value)) inner = inner.options.map(unwrap).find((o) => o instanceof z.ZodObject) ?? inner;
  if (!(inner instanceof z.ZodObject) || !isPlainObject(value)) {
    if (inner instanceof z.ZodRecord && isPlainObject(value)) {
      return Object.entries(value).flatMap(([k, v]) => unknownKeys(inner.valueType, v, `${prefix}${k}.`));
    }
    return [];
  }
  const shape: Readonly<Record<string, z.core.SomeType>> = inner.shape;
  return Object.entries(value).flatMap(([key, child]) => {
    const childSchema = shape[key];
    if (!childSchema) return [`${prefix}${key}`];
    return unknownKeys(childSchema, child, `${prefix}${key}.`);
  });
}

function unwrap(schema: z.core.SomeType): z.core.SomeType {
  let s: z.core.SomeType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
    s = s.unwrap();
  }
  return s;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
