/**
 * Canonical JSON for idempotency (CONTRACT §2): two bodies are "the same" when they hold the same
 * values, whatever the key order or whitespace. Object keys are sorted recursively; arrays keep order.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const parts = entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`);
  return `{${parts.join(',')}}`;
}
