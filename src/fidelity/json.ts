/**
 * Walking JSON that came from elsewhere (a deployment's answers, the OpenAPI document as data)
 * without `any`: every step says what it expects and gets `undefined` when it is not there.
 */

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value[k1][k2]…`, or undefined as soon as a step is not an object or an array. */
export function at(value: unknown, ...keys: (string | number)[]): unknown {
  let node = value;
  for (const key of keys) {
    if (Array.isArray(node) && typeof key === 'number') node = node[key];
    else if (isRecord(node) && typeof key === 'string') node = Object.hasOwn(node, key) ? node[key] : undefined;
    else return undefined;
  }
  return node;
}

/** A string at that place, or undefined. */
export function str(value: unknown, ...keys: (string | number)[]): string | undefined {
  const found = at(value, ...keys);
  return typeof found === 'string' ? found : undefined;
}

/** JSON.parse that answers undefined for text that is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Short, one-line JSON of a value for messages. */
export function brief(value: unknown, max = 200): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
