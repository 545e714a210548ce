import { timingSafeEqual } from 'node:crypto';
import { computeSignature } from '../../webhooks/signature.js';

/** `t=<unix seconds>,v1=<64 hex>` and nothing else (CONTRACT §5, interface §6.3). */
export const SIGNATURE_FORMAT = /^t=(\d+),v1=([0-9a-f]{64})$/;

/**
 * What is wrong with a delivery's signature, or null: the header's format, then the HMAC-SHA256
 * of `<t>.<raw body>` under `secret` (interface §6.3). The timestamp's age is checked apart.
 */
export function signatureProblem(rawBody: string, header: string | undefined, secret: string): string | null {
  if (header === undefined) return 'no X-Service-Signature header';
  const m = SIGNATURE_FORMAT.exec(header);
  if (!m) return `X-Service-Signature ${JSON.stringify(header.slice(0, 100))} is not t=<unix>,v1=<64 hex>`;
  const expected = Buffer.from(computeSignature(secret, Number(m[1]), rawBody), 'hex');
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'))
    ? null
    : `v1 is not the HMAC-SHA256 of "<t>.<raw body>" under the secret (header ${header.slice(0, 30)}…)`;
}

/** The signature's `t` in seconds, or null when the header has none. */
export function signatureTime(header: string | undefined): number | null {
  const m = header === undefined ? null : /(?:^|,)\s*t=(\d+)/.exec(header);
  return m ? Number(m[1]) : null;
}
