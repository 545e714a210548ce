/**
 * Webhook signatures (interface document §6.3): `X-Service-Signature: t=<unix seconds>,v1=<hex>`, the
 * hex HMAC-SHA256 of `${t}.${rawBody}` under the webhook secret. The signing half is used by the
 * delivery worker; {@link verifyWebhook} is the receiver-side verifier exported to integrators.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './envelope.js';

/** Name of the header that carries the signature. */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/** Receivers reject timestamps older than 5 minutes (§6.3, §8). */
const DEFAULT_TOLERANCE_SECONDS = 300;
const EXPECTED_FORMAT = 't=<unix seconds>,v1=<64 hex digits>';
const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function assertTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be a non-negative integer number of seconds, got ${timestamp}`);
  }
}

function hmac(secret: string, timestamp: number, rawBody: string | Uint8Array): Buffer {
  // Two updates equal one update of the concatenation; a Uint8Array body is hashed byte-for-byte,
  // never decoded and re-encoded (that would change invalid UTF-8 or a BOM).
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
}

/** Hex HMAC-SHA256 over `${timestamp}.${rawBody}` with `secret`; `timestamp` in unix seconds. */
export function computeSignature(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  assertTimestamp(timestamp);
  return hmac(secret, timestamp, rawBody).toString('hex');
}

/** The full header value, `t=<timestamp>,v1=<hex>`. */
export function signatureHeader(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`;
}

/** Why {@link verifyWebhook} rejected a request. */
export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'no_v1_signature'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'signature_mismatch'
  | 'invalid_json';

/** Thrown by {@link verifyWebhook}; `code` is stable, `message` explains what was wrong and what was expected. */
export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
  }
}

/** Options of {@link verifyWebhook}. */
export interface VerifyOptions {
  /** Largest accepted age (and clock skew into the future), in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's current time, as a Date or ms since the epoch. Default `Date.now()`. */
  now?: Date | number;
}

interface ParsedHeader {
  timestamp: number;
  signatures: string[];
}

function parseHeader(header: string): ParsedHeader {
  const malformed = (why: string): WebhookVerificationError =>
    new WebhookVerificationError('malformed_header', `${SIGNATURE_HEADER} ${why}; expected "${EXPECTED_FORMAT}".`);
  const timestamps: string[] = [];
  const signatures: string[] = [];
  const schemes: string[] = [];
  // Tolerant: spaces around parts, any order, empty parts skipped, unknown schemes (v0, v2…) ignored.
  for (const part of header.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw malformed(`has a part "${part.slice(0, 40)}" that is not key=value`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') timestamps.push(value);
    else if (key === 'v1') signatures.push(value);
    else schemes.push(key);
  }
  if (timestamps.length === 0) throw malformed('has no t= timestamp');
  if (timestamps.length > 1) throw malformed(`has ${timestamps.length} t= timestamps, not one`);
  const t = timestamps[0] ?? '';
  if (!/^[0-9]{1,15}$/.test(t)) throw malformed(`timestamp "${t.slice(0, 40)}" is not a whole number of unix seconds`);
  if (signatures.length === 0) {
    const found = schemes.length > 0 ? `only ${[...new Set(schemes)].join(', ')}` : 'no signature at all';
    throw new WebhookVerificationError('no_v1_signature', `${SIGNATURE_HEADER} has ${found}; expected at least one v1=<64 hex digits> (HMAC-SHA256).`);
  }
  return { timestamp: Number(t), signatures };
}

/** Constant-time comparison of one candidate with the expected digest; bad hex is a mismatch. */
function matches(candidate: string, expected: Buffer): boolean {
  if (!HEX_SHA256.test(candidate)) return false;
  return timingSafeEqual(Buffer.from(candidate, 'hex'), expected);
}

function nowMs(now: Date | number | undefined): number {
  const ms = now === undefined ? Date.now() : now instanceof Date ? now.getTime() : now;
  if (!Number.isFinite(ms)) throw new RangeError('options.now must be a valid Date or a finite number of ms');
  return ms;
}

/**
 * Verifies a delivery and returns its parsed envelope. Pass the raw request body exactly as
 * received (string or bytes, before any JSON parsing) and the `X-Service-Signature` header value.
 * Order of checks: header syntax, signature (any `v1` value may match, as during a secret
 * rotation), timestamp window, JSON. Throws {@link WebhookVerificationError} on every failure.
 */
export function verifyWebhook(rawBody: string | Uint8Array, header: string | null | undefined, secret: string, options: VerifyOptions = {}): WebhookEvent {
  // Misuse is a programming error rather than a rejected request, so it is not a WebhookVerificationError.
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('rawBody must be the raw request body (string or Uint8Array), not a parsed object');
  }
  if (typeof secret !== 'string' || secret === '') throw new TypeError('secret must be a non-empty string');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError('options.toleranceSeconds must be a non-negative number');
  }
  const current = Math.floor(nowMs(options.now) / 1000);

  if (typeof header !== 'string' || header.trim() === '') {
    throw new WebhookVerificationError('missing_header', `The ${SIGNATURE_HEADER} header is missing or empty; expected "${EXPECTED_FORMAT}".`);
  }
  const { timestamp, signatures } = parseHeader(header);

  // Signature before timestamp: a clock complaint about a request we cannot authenticate would
  // point the integrator at the wrong problem (wrong secret, re-serialised body).
  const expected = hmac(secret, timestamp, rawBody);
  // No early exit: every candidate is compared, so timing does not tell which one matched.
  const ok = signatures.reduce((acc, candidate) => matches(candidate, expected) || acc, false);
  if (!ok) {
    const subject = signatures.length === 1 ? 'The v1 signature does not match' : `None of the ${signatures.length} v1 signatures matches`;
    throw new WebhookVerificationError(
      'signature_mismatch',
      `${subject} the HMAC-SHA256 of "<t>.<raw body>" under this secret; check the secret and that the body is verified exactly as received.`,
    );
  }

  const age = current - timestamp;
  if (age > tolerance) {
    throw new WebhookVerificationError('timestamp_too_old', `The signature timestamp is ${age} s old; the limit is ${tolerance} s.`);
  }
  if (-age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `The signature timestamp is ${-age} s in the future; at most ${tolerance} s of clock skew is accepted.`,
    );
  }

  let parsed: unknown;
  try {
    const text = typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
    parsed = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new WebhookVerificationError('invalid_json', `The signature is valid but the body is not UTF-8 JSON: ${why}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new WebhookVerificationError('invalid_json', 'The signature is valid but the body is not a JSON object (event envelope).');
  }
  return parsed as WebhookEvent;
}
