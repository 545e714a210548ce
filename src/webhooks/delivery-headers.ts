import { wallClockSeconds } from '../clock/clock.js';
import { signatureHeader } from './signature.js';

/** The headers of CONTRACT §5; the signature's `t` is wall-clock time, even on an advanced clock. */
export function deliveryHeaders(
  body: string,
  secret: string,
  custom: Record<string, string>,
  version: string,
  timestamp = wallClockSeconds(),
): Record<string, string> {
  return {
    ...custom,
    'content-type': 'application/json',
    'user-agent': `svc-emulator/${version}`,
    'x-service-signature': signatureHeader(secret, timestamp, body),
  };
}
