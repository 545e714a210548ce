import * as z from 'zod';

/**
 * Keys of `value` that `schema` does not know, as dotted paths. The schema strips them silently;
 * listing them lets the CLI warn about a typo (`prot` for `port`) instead of ignoring it.
 */
export function unknownKeys(schema: z.ZodType, value: unknown, prefix = ''): string[] {
  const inner = unwrap(schema);
  if (!(inner instanceof z.ZodObject) || !isPlainObject(value)) {
    if (inner instanceof z.ZodRecord && isPlainObject(value)) {
      return Object.entries(value).flatMap(([k, v]) => unknownKeys(inner.valueType as z.ZodType, v, `${prefix}${k}.`));
    }
    return [];
  }
  const shape = inner.shape as Record<string, z.ZodType>;
  return Object.entries(value).flatMap(([key, child]) => {
    const childSchema = shape[key];
    if (!childSchema) return [`${prefix}${key}`];
    return unknownKeys(childSchema, child, `${prefix}${key}.`);
  });
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
    s = s.unwrap() as z.ZodType;
  }
  return s;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
