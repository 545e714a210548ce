import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  computeSignature,
  SIGNATURE_HEADER,
  signatureHeader,
  verifyWebhook,
  WebhookVerificationError,
  type VerifyOptions,
  type WebhookVerificationErrorCode,
} from '../../src/webhooks/signature.js';

const SECRET = 'whsec_test_secret_0123456789';
const T = 1_700_000_000;
const BODY = '{"id":"inv_1-1","type":"invoice.paid"}';
// printf '%s' '1700000000.{"id":"inv_1-1","type":"invoice.paid"}' | openssl dgst -sha256 -hmac 'whsec_test_secret_0123456789'
const BODY_HEX = 'a2a84d4f1730406f62e06d21854851ecb9f52b6b86f6134e6d072661bfcd00bb';
const UNICODE_BODY = '{"id":"inv_1-1","type":"invoice.paid","data":{"note":"café €5 ✓"}}';
// printf '%s' '1700000000.{"id":"inv_1-1","type":"invoice.paid","data":{"note":"café €5 ✓"}}' | openssl dgst -sha256 -hmac 'whsec_test_secret_0123456789'
const UNICODE_HEX = '2843b93d6ddb559e1d30d57cb8b5ff7f936ade60b39629d62add765bca6e8cb3';

/** Reference signature computed independently of the module under test. */
const reference = (secret: string, t: number, body: string | Uint8Array): string =>
  createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body)]))
    .digest('hex');

const AT_T: VerifyOptions = { now: T * 1000 };

/** Runs `fn`, expects a WebhookVerificationError with `code`, returns its message. */
function failure(fn: () => unknown, code: WebhookVerificationErrorCode): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect(err).toBeInstanceOf(Error);
    expect((err as WebhookVerificationError).name).toBe('WebhookVerificationError');
    expect((err as WebhookVerificationError).code).toBe(code);
    return (err as Error).message;
  }
  throw new Error(`expected a ${code} failure`);
}

describe('signing', () => {
  it('matches the openssl vectors', () => {
    expect(SIGNATURE_HEADER).toBe('X-Service-Signature');
    expect(computeSignature(SECRET, T, BODY)).toBe(BODY_HEX);
    expect(computeSignature(SECRET, T, UNICODE_BODY)).toBe(UNICODE_HEX);
    expect(signatureHeader(SECRET, T, BODY)).toBe(`t=${T},v1=${BODY_HEX}`);
  });

  it('agrees with node:crypto over a string and its UTF-8 bytes', () => {
    for (const body of [BODY, UNICODE_BODY, '', '{"emoji":"😀"}']) {
      expect(computeSignature(SECRET, T, body)).toBe(reference(SECRET, T, body));
      expect(computeSignature(SECRET, T, Buffer.from(body, 'utf8'))).toBe(reference(SECRET, T, body));
      expect(computeSignature(SECRET, T, new TextEncoder().encode(body))).toBe(reference(SECRET, T, body));
    }
  });

  it('signs bytes byte-for-byte, even when they are not valid UTF-8', () => {
    const bytes = Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]);
    expect(computeSignature(SECRET, T, bytes)).toBe(reference(SECRET, T, bytes));
    expect(computeSignature(SECRET, T, bytes)).not.toBe(computeSignature(SECRET, T, Buffer.from(bytes).toString('utf8')));
  });

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => computeSignature(SECRET, 1.5, BODY)).toThrow(RangeError);
    expect(() => signatureHeader(SECRET, -1, BODY)).toThrow(RangeError);
  });
});

describe('verifyWebhook', () => {
  const header = `t=${T},v1=${BODY_HEX}`;

  it('returns the parsed envelope of a valid delivery', () => {
    expect(verifyWebhook(BODY, header, SECRET, AT_T)).toEqual({ id: 'inv_1-1', type: 'invoice.paid' });
    expect(verifyWebhook(Buffer.from(BODY), header, SECRET, { now: new Date(T * 1000) }).id).toBe('inv_1-1');
  });

  it('verifies a non-ASCII body given as string, Buffer or Uint8Array', () => {
    const h = `t=${T},v1=${UNICODE_HEX}`;
    for (const body of [UNICODE_BODY, Buffer.from(UNICODE_BODY), new TextEncoder().encode(UNICODE_BODY)]) {
      expect(verifyWebhook(body, h, SECRET, AT_T)).toMatchObject({ data: { note: 'café €5 ✓' } });
    }
  });

  it('rejects a body with one byte changed', () => {
    const tampered = Buffer.from(BODY);
    const i = tampered.length - 3;
    tampered[i] = (tampered[i] ?? 0) ^ 0x01;
    expect(failure(() => verifyWebhook(tampered, header, SECRET, AT_T), 'signature_mismatch')).toMatch(/does not match/);
    failure(() => verifyWebhook(BODY.replace('paid', 'pai d'), header, SECRET, AT_T), 'signature_mismatch');
    // A non-ASCII body re-encoded as Latin-1 is different bytes.
    failure(() => verifyWebhook(Buffer.from(UNICODE_BODY, 'latin1'), `t=${T},v1=${UNICODE_HEX}`, SECRET, AT_T), 'signature_mismatch');
  });

  it('rejects the wrong secret, a changed timestamp and bad signature values', () => {
    failure(() => verifyWebhook(BODY, header, `${SECRET}x`, AT_T), 'signature_mismatch');
    failure(() => verifyWebhook(BODY, `t=${T + 1},v1=${BODY_HEX}`, SECRET, AT_T), 'signature_mismatch');
    for (const v1 of ['', 'abc', BODY_HEX.slice(0, 62), `${BODY_HEX}00`, `${BODY_HEX.slice(0, 63)}g`, 'zz'.repeat(32)]) {
      failure(() => verifyWebhook(BODY, `t=${T},v1=${v1}`, SECRET, AT_T), 'signature_mismatch');
    }
  });

  it('accepts upper-case hex', () => {
    expect(verifyWebhook(BODY, `t=${T},v1=${BODY_HEX.toUpperCase()}`, SECRET, AT_T).id).toBe('inv_1-1');
  });

  it('parses the header tolerantly', () => {
    for (const h of [` t=${T} , v1=${BODY_HEX} `, `v1=${BODY_HEX},t=${T}`, `t=${T},v0=deadbeef,v1=${BODY_HEX},v2=whatever`, `t=${T},,v1=${BODY_HEX},`]) {
      expect(verifyWebhook(BODY, h, SECRET, AT_T).id).toBe('inv_1-1');
    }
  });

  it('accepts any of several v1 values (secret rotation)', () => {
    const old = reference('whsec_old_secret_abcdefgh', T, BODY);
    expect(verifyWebhook(BODY, `t=${T},v1=${old},v1=${BODY_HEX}`, SECRET, AT_T).id).toBe('inv_1-1');
    expect(verifyWebhook(BODY, `t=${T},v1=${BODY_HEX},v1=${old}`, SECRET, AT_T).id).toBe('inv_1-1');
    expect(verifyWebhook(BODY, `t=${T},v1=${old},v1=${BODY_HEX}`, 'whsec_old_secret_abcdefgh', AT_T).id).toBe('inv_1-1');
    expect(failure(() => verifyWebhook(BODY, `t=${T},v1=${old},v1=bad`, SECRET, AT_T), 'signature_mismatch')).toMatch(/None of the 2 v1 signatures/);
  });

  it('reports a missing header', () => {
    for (const h of [undefined, null, '', '   ']) {
      expect(failure(() => verifyWebhook(BODY, h, SECRET, AT_T), 'missing_header')).toMatch(/X-Service-Signature.*missing/);
    }
  });

  it('reports a malformed header', () => {
    const cases: Array<[string, RegExp]> = [
      [BODY_HEX, /not key=value/],
      [`v1=${BODY_HEX}`, /no t= timestamp/],
      [`t=,v1=${BODY_HEX}`, /not a whole number/],
      [`t=abc,v1=${BODY_HEX}`, /"abc" is not a whole number/],
      [`t=-5,v1=${BODY_HEX}`, /not a whole number/],
      [`t=1.5,v1=${BODY_HEX}`, /not a whole number/],
      [`t=${T},t=${T},v1=${BODY_HEX}`, /2 t= timestamps/],
      [`=x,t=${T},v1=${BODY_HEX}`, /not key=value/],
    ];
    for (const [h, message] of cases) {
      const text = failure(() => verifyWebhook(BODY, h, SECRET, AT_T), 'malformed_header');
      expect(text).toMatch(message);
      expect(text).toMatch(/expected "t=<unix seconds>,v1=<64 hex digits>"/);
    }
  });

  it('reports a header without a v1 signature', () => {
    expect(failure(() => verifyWebhook(BODY, `t=${T},v0=abc`, SECRET, AT_T), 'no_v1_signature')).toMatch(/only v0/);
    failure(() => verifyWebhook(BODY, `t=${T}`, SECRET, AT_T), 'no_v1_signature');
  });

  describe('timestamp window', () => {
    const at = (offsetSeconds: number, extra: VerifyOptions = {}): VerifyOptions => ({
      now: (T + offsetSeconds) * 1000,
      ...extra,
    });

    it('accepts ages up to the default 300 s either way', () => {
      for (const offset of [0, 1, 299, 300, -300, -1]) expect(verifyWebhook(BODY, header, SECRET, at(offset)).id).toBe('inv_1-1');
      // sub-second precision is dropped: 300.999 s is still 300 whole seconds
      expect(verifyWebhook(BODY, header, SECRET, { now: (T + 300) * 1000 + 999 }).id).toBe('inv_1-1');
    });

    it('rejects a timestamp just beyond the limit, saying by how much', () => {
      expect(failure(() => verifyWebhook(BODY, header, SECRET, at(301)), 'timestamp_too_old')).toBe(
        'The signature timestamp is 301 s old; the limit is 300 s.',
      );
      expect(failure(() => verifyWebhook(BODY, header, SECRET, at(412)), 'timestamp_too_old')).toMatch(/412 s old/);
      expect(failure(() => verifyWebhook(BODY, header, SECRET, at(-301)), 'timestamp_in_future')).toBe(
        'The signature timestamp is 301 s in the future; at most 300 s of clock skew is accepted.',
      );
    });

    it('honours a custom tolerance', () => {
      expect(verifyWebhook(BODY, header, SECRET, at(10, { toleranceSeconds: 10 })).id).toBe('inv_1-1');
      expect(failure(() => verifyWebhook(BODY, header, SECRET, at(11, { toleranceSeconds: 10 })), 'timestamp_too_old')).toMatch(/11 s old; the limit is 10 s/);
      failure(() => verifyWebhook(BODY, header, SECRET, at(-11, { toleranceSeconds: 10 })), 'timestamp_in_future');
      expect(verifyWebhook(BODY, header, SECRET, at(3000, { toleranceSeconds: 3600 })).id).toBe('inv_1-1');
      expect(verifyWebhook(BODY, header, SECRET, at(0, { toleranceSeconds: 0 })).id).toBe('inv_1-1');
      failure(() => verifyWebhook(BODY, header, SECRET, at(1, { toleranceSeconds: 0 })), 'timestamp_too_old');
    });

    it('uses Date.now() by default', () => {
      const now = Math.floor(Date.now() / 1000);
      expect(verifyWebhook(BODY, signatureHeader(SECRET, now, BODY), SECRET).id).toBe('inv_1-1');
      failure(() => verifyWebhook(BODY, header, SECRET), 'timestamp_too_old');
    });

    it('checks the signature before the timestamp', () => {
      failure(() => verifyWebhook(BODY, header, 'another-secret-value', at(10_000)), 'signature_mismatch');
    });
  });

  it('reports a verified body that is not a JSON object', () => {
    for (const body of ['not json', '', '[1,2]', 'null', '"text"', Uint8Array.from([0x7b, 0xff, 0x7d])]) {
      const h = `t=${T},v1=${reference(SECRET, T, body)}`;
      expect(failure(() => verifyWebhook(body, h, SECRET, AT_T), 'invalid_json')).toMatch(/signature is valid but the body/);
    }
  });

  it('treats misuse as a programming error, not a verification failure', () => {
    expect(() => verifyWebhook({ id: 'x' } as unknown as string, header, SECRET, AT_T)).toThrow(TypeError);
    expect(() => verifyWebhook(BODY, header, '', AT_T)).toThrow(TypeError);
    expect(() => verifyWebhook(BODY, header, SECRET, { ...AT_T, toleranceSeconds: -1 })).toThrow(RangeError);
    expect(() => verifyWebhook(BODY, header, SECRET, { now: new Date(Number.NaN) })).toThrow(RangeError);
  });
});
