/**
 * Exact decimal money as strings (CONTRACT §2).
 *
 * Amounts travel as decimal strings and are computed as scaled bigints, so no value is ever
 * rounded: a float cannot hold 0.1 exactly and would let a sum of payments miss an invoice's
 * amount by a hair. Every result keeps enough fraction digits to be exact.
 *
 * The arithmetic helpers accept any plain decimal (zero, negative, more than 6 fraction digits)
 * and throw a TypeError on anything else; validating wire input is {@link isValidAmount}'s job.
 */

/** The wire form of an amount: no sign, no exponent, no leading zeros, 1–6 fraction digits. */
export const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]{1,6})?$/;

/** Longest integer part accepted, so that amounts stay far from any downstream uint/decimal limit. */
export const MAX_INTEGER_DIGITS = 18;

/**
 * Exactly what {@link isValidAmount} accepts, as one regular expression for the OpenAPI document:
 * {@link AMOUNT_PATTERN} alone also matches "0", "0.000000" and 19-digit amounts the server refuses,
 * and a schema-driven fuzzer (Schemathesis) then reports every such 400 as a bug. "Greater than zero"
 * is spelt out as "0." followed by some non-zero digit within six places; no lookahead, which some
 * generators (hypothesis' from_regex) do not support.
 */
export const wireAmountPattern = (): RegExp =>
  // Made when asked (the OpenAPI document, its tests), not when money.ts loads: every start loads it.
  new RegExp(
    `^([1-9][0-9]{0,${MAX_INTEGER_DIGITS - 1}}(\\.[0-9]{1,6})?|0\\.(${[0, 1, 2, 3, 4, 5].map((z) => `${'0'.repeat(z)}[1-9][0-9]{0,${5 - z}}`).join('|')}))$`,
  );

/**
 * Internal operands are wider than the wire form: sums may pass 18 digits, differences may be
 * negative, and received values converted from 18-decimal tokens (BNB Smart Chain) may carry
 * more than 6 fraction digits.
 */
const DECIMAL_PATTERN = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** A decimal as `units / 10^scale`. */
interface Scaled {
  units: bigint;
  scale: number;
}

const POW10_CACHE: bigint[] = [];

function pow10(n: number): bigint {
  let p = POW10_CACHE[n];
  if (p === undefined) {
    p = 10n ** BigInt(n);
    POW10_CACHE[n] = p;
  }
  return p;
}

function parse(s: string): Scaled {
  // A negative zero has no meaning as money; rejecting it keeps every value with one spelling of its sign.
  if (typeof s !== 'string' || !DECIMAL_PATTERN.test(s) || /^-0(\.0+)?$/.test(s)) {
    throw new TypeError(`not a decimal amount: ${JSON.stringify(s)}`);
  }
  const dot = s.indexOf('.');
  if (dot === -1) return { units: BigInt(s), scale: 0 };
  // Dropping the dot leaves a valid bigint literal (leading zeros and a '-' sign are fine).
  return { units: BigInt(s.slice(0, dot) + s.slice(dot + 1)), scale: s.length - dot - 1 };
}

function rescale(v: Scaled, scale: number): bigint {
  return v.units * pow10(scale - v.scale);
}

/** Formats `units / 10^scale` with exactly `scale` fraction digits. */
function format(units: bigint, scale: number): string {
  const negative = units < 0n;
  let digits = (negative ? -units : units).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return negative ? `-${digits}` : digits;
}

/** Formats with at least `minScale` fraction digits, more only where the value needs them. */
function formatAtLeast(v: Scaled, minScale: number): string {
  let { units, scale } = v;
  while (scale > minScale && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  if (scale < minScale) {
    units *= pow10(minScale - scale);
    scale = minScale;
  }
  return format(units, scale);
}

/**
 * True for a string that is a valid invoice or payment amount: matches {@link AMOUNT_PATTERN},
 * has at most {@link MAX_INTEGER_DIGITS} integer digits, and is strictly greater than zero.
 */
export function isValidAmount(s: unknown): s is string {
  if (typeof s !== 'string' || !AMOUNT_PATTERN.test(s)) return false;
  const dot = s.indexOf('.');
  const integerDigits = dot === -1 ? s.length : dot;
  return integerDigits <= MAX_INTEGER_DIGITS && /[1-9]/.test(s);
}

/** Number of fraction digits of a decimal string (`"10.00"` → 2, `"10"` → 0). */
export function scaleOf(s: string): number {
  const dot = s.indexOf('.');
  return dot === -1 ? 0 : s.length - dot - 1;
}

/** Exact `a + b`, with max(scale a, scale b) fraction digits (`"10.00" + "0"` = `"10.00"`). */
export function addAmounts(a: string, b: string): string {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  return format(rescale(x, scale) + rescale(y, scale), scale);
}

/** Exact `a − b`, possibly negative (leading `-`), with max(scale a, scale b) fraction digits. */
export function subtractAmounts(a: string, b: string): string {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  return format(rescale(x, scale) - rescale(y, scale), scale);
}

/** Numeric comparison regardless of scale (`"1.50"` equals `"1.5"`). */
export function compareAmounts(a: string, b: string): -1 | 0 | 1 {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  const d = rescale(x, scale) - rescale(y, scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/**
 * What is still owed: max(0, amount − received), with `amount`'s fraction digits unless the
 * value needs more (`"10.00"` − `"0.005"` = `"9.995"`).
 */
export function remainingAmount(amount: string, received: string): string {
  const x = parse(amount);
  const y = parse(received);
  const scale = Math.max(x.scale, y.scale);
  const d = rescale(x, scale) - rescale(y, scale);
  return formatAtLeast({ units: d > 0n ? d : 0n, scale }, x.scale);
}

/**
 * `amountReceived` as CONTRACT §2 shows it: as many fraction digits as `amount`, more only when
 * the received value needs them (`("10.00", "10")` → `"10.00"`, `("10", "5.50")` → `"5.5"`).
 */
export function formatReceived(amount: string, received: string): string {
  return formatAtLeast(parse(received), scaleOf(amount));
}

/** Zero written with `amount`'s fraction digits: `"0.00"` for `"10.00"`, `"0"` for `"10"`. */
export function zeroLike(amount: string): string {
  const scale = scaleOf(amount);
  return scale === 0 ? '0' : `0.${'0'.repeat(scale)}`;
}

/**
 * Converts a non-negative decimal amount to a token's integer base units.
 * @throws RangeError when the amount has more fraction digits than the token has decimals
 *   (the value could not be sent exactly), or is negative.
 */
export function toBaseUnits(amount: string, decimals: number): bigint {
  if (!Number.isInteger(decimals) || decimals < 0) {
    throw new RangeError(`invalid token decimals: ${decimals}`);
  }
  const v = parse(amount);
  if (v.units < 0n) throw new RangeError(`negative amount: ${amount}`);
  if (v.scale > decimals) {
    throw new RangeError(`${amount} has more than ${decimals} fraction digits`);
  }
  return rescale(v, decimals);
}

/** Converts integer base units back to a decimal string, trailing fraction zeros trimmed. */
export function fromBaseUnits(units: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0) {
    throw new RangeError(`invalid token decimals: ${decimals}`);
  }
  return formatAtLeast({ units, scale: decimals }, 0);
}
