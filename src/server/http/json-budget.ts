/**
 * Bounded work per request (CONTRACT §8): 1 MiB of `[{},{},…]` is 340,000 objects, about half a
 * second of event loop and tens of MiB of heap once parsed, and forty such bodies at once exhausted
 * a 512 MiB heap. The values are counted on the raw bytes, before `JSON.parse` builds anything.
 */

export const MAX_JSON_VALUES = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON text in `raw` holds more than `limit` values (objects, arrays, strings, numbers,
 * literals; object keys are not values). Stops as soon as the answer is known. Strings are skipped
 * with `indexOf`, so their content costs next to nothing. For text that is not JSON the count is a
 * rough one; `JSON.parse` refuses such text anyway.
 */
export function exceedsValueBudget(raw: Uint8Array, limit = MAX_JSON_VALUES): boolean {
  // Each value of valid JSON takes at least two bytes (`1,` or `{}`) but the last, so text of at most
  // 2 × limit bytes cannot exceed the limit: ordinary requests skip the scan entirely.
  if (raw.length <= 2 * limit) return false;
  // Every `{`, `[`, string and scalar token counts one; every `:` takes one back (the key before
  // it). Between a key and its colon the count is one ahead, hence `limit + 1` while scanning.
  let count = 0;
  let inScalar = false;
  const n = raw.length;
  for (let i = 0; i < n; i++) {
    const c = raw[i]!;
    switch (c) {
      case QUOTE: {
        count++;
        inScalar = false;
        i = closingQuote(raw, i + 1);
        if (i === -1) return count > limit;
        break;
      }
      case 0x7b: // {
      case 0x5b: // [
        count++;
        inScalar = false;
        break;
      case 0x3a: // :
        count--;
        inScalar = false;
        break;
      case 0x7d: // }
      case 0x5d: // ]
      case 0x2c: // ,
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
        inScalar = false;
        continue;
      default:
        // Numbers, true, false, null: one token per run of other bytes.
        if (!inScalar) {
          count++;
          inScalar = true;
        }
        continue;
    }
    if (count > limit + 1) return true;
  }
  return count > limit;
}

/** Index of the quote that closes a string whose content starts at `from`, or -1. */
function closingQuote(raw: Uint8Array, from: number): number {
  let at = from;
  for (;;) {
    const q = raw.indexOf(QUOTE, at);
    if (q === -1) return -1;
    // Escaped when preceded by an odd number of backslashes.
    let slashes = 0;
    for (let j = q - 1; j >= from && raw[j] === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return q;
    at = q + 1;
  }
}
