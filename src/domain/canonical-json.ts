/**
 * Canonical JSON for idempotency (CONTRACT §2): two bodies are "the same" when they hold the same
 * values, whatever the key order or whitespace. Object keys are sorted recursively; arrays keep order.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  const parts = keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${parts.join(',')}}`;
}
