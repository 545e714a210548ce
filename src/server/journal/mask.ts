/**
 * Keys and secrets as the journal shows them (CONTRACT §9: "keys appear only as their prefix and
 * last four characters"). Applied when entries are read, never on the request path, except to the
 * `Authorization` header, which is masked as it is recorded so that no full key is kept.
 */

const KEY = /^(?:pt_)?(?:test|live)_/;
const BEARER = /^Bearer +/i;
const KEYS_IN_TEXT = /(?<![0-9A-Za-z_])((?:pt_)?(?:test|live)_)[0-9A-Za-z]{28}([0-9A-Za-z]{4})(?![0-9A-Za-z])/g;
// A JSON string member named "secret" (the webhook PUT's signing secret), escapes included.
const SECRET_MEMBER = /("secret"\s*:\s*")((?:[^"\\]|\\.)*)"/g;

/** `pt_test_…a1B2`; anything that is not a key shows its last four characters only, short values nothing. */
export function maskSecret(value: string): string {
  const prefix = KEY.exec(value)?.[0] ?? '';
  return value.length - prefix.length > 8 ? `${prefix}…${value.slice(-4)}` : `${prefix}…`;
}

/** The key of an `Authorization` header (`Bearer <key>`), masked; null without one. */
export function maskAuthorization(header: string | undefined): string | null {
  if (header === undefined) return null;
  const token = header.replace(BEARER, '').trim();
  return token === '' ? null : maskSecret(token);
}

/** A body with every API key and every `"secret"` member masked. */
export function maskBody(text: string): string {
  return text.replace(KEYS_IN_TEXT, '$1…$2').replace(SECRET_MEMBER, (_all, head: string, value: string) => `${head}${maskSecret(value).replace(/\\/g, '')}"`);
}
