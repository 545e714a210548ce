/**
 * CONTRACT §8 "Terminal output": what a client, a receiver or a remote service sent (field names,
 * paths, response bodies, event fields, error messages) never reaches the operator's terminal raw.
 * A string carrying ESC could clear the screen, move the cursor or retitle the window; a carriage
 * return or a line separator could forge a log line; a bidi override could make text read backwards.
 *
 * Every human renderer passes such strings through `esc` before colouring them (colour is our own
 * ESC, added after). JSON output never goes through here: it stays exact JSON.
 */

/**
 * C0 controls, DEL and C1 controls, the Unicode line and paragraph separators, and the bidi
 * controls (embeddings, overrides, isolates and the directional marks) that "Trojan Source" uses.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
const UNSAFE_KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function replacement(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` safe to print: every unsafe character becomes a visible escape (`\x1b`, `\r`, `\u202e`).
 * Line breaks and tabs are escaped too, so a value stays on its line; `multiline` keeps them, for
 * bodies shown as blocks (a pretty-printed payload, a response body).
 */
export function esc(text: unknown, { multiline = false }: { multiline?: boolean } = {}): string {
  const s = typeof text === 'string' ? text : String(text);
  return s.replace(multiline ? UNSAFE_KEEP_LINES : UNSAFE, replacement);
}

/**
 * JSON text (JSON.stringify's output) safe to print and still the same JSON: the characters
 * JSON.stringify leaves raw (DEL, C1, U+2028/2029, bidi controls) can only be inside strings, where
 * `\uXXXX` means the same character. For human output that is a JSON document (`svc openapi`).
 */
export function escJson(json: string): string {
  return json.replace(UNSAFE_KEEP_LINES, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
