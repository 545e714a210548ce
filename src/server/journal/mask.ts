/**
 * Keys and secrets as the journal shows them (CONTRACT §9: "keys appear only as their prefix and
 * last four characters"; secrets not at all). Applied when entries are read, never on the request
 * path, except to the `Authorization` header, which is masked as it is recorded so that no full key
 * is kept.
 *
 * Bodies are scanned as JSON tokens, not matched with one regular expression, because what a client
 * sends is not always tidy: a member name may be written with escapes (`"secr\u0065t"`), a body may be
 * cut at the journal's 16 KiB limit in the middle of a secret, and `customHeaders` values (often
 * bearer tokens for the receiver) are secrets whatever their names.
 */
import { CHAINS } from '../../domain/chains.js';

const KEY = /^(?:pt_)?(?:test|live)_/;
const BEARER = /^Bearer +/i;
const KEYS_IN_TEXT = /(?<![0-9A-Za-z_])((?:pt_)?(?:test|live)_)[0-9A-Za-z]{28}([0-9A-Za-z]{4})(?![0-9A-Za-z])/g;
/** A key cut short by the body limit (or by the client): the prefix and 1–31 characters at the end. */
const KEY_CUT_AT_END = /(?<![0-9A-Za-z_])((?:pt_)?(?:test|live)_)[0-9A-Za-z]{1,31}$/;
/** Member names whose string values are secrets (compared after JSON unescaping, any case). */
const SECRET_NAME = 'secret|password|token|api_?key|client_?secret|access_?token';
// The expressions built from these are made when first used (entries are masked when read): a RegExp
// made from a string is parsed when made, and this module loads with every start (~0.06 ms).
let secretNames: RegExp | undefined;
const isSecretName = (name: string): boolean => (secretNames ??= new RegExp(`^(?:${SECRET_NAME})$`, 'i')).test(name);
/**
 * The API's own `token` member (a route lock, a payment) names a stablecoin: a symbol the service
 * lists is shown as it is, so that the journal and a recording (`svc proxy --record`) keep which token
 * was asked for. Any other value of a member named `token` is still a secret.
 */
const TOKEN_SYMBOLS = new Set(CHAINS.flatMap((chain) => chain.tokens.map((t) => t.symbol)));
/** Objects whose every string value is a secret. */
const SECRET_OBJECT = 'customheaders';
const isSecretObject = (name: string): boolean => name.toLowerCase() === SECRET_OBJECT;
/**
 * What must be in a text for maskBody to change anything: a key's `test_`/`live_`, a secret-named
 * member or `customHeaders` written in full between quotes, or a `\u` escape (the only escape that
 * can spell a letter). A text without any is returned as it is, unscanned: the scan was most of a
 * journal entry's cost on PostgreSQL, where every entry is presented as it is written (issue 27), and
 * the service's own answers (an invoice's `tokens`, say) hold none.
 */
let maybeMaskedPattern: RegExp | undefined;
const maybeMasked = (text: string): boolean =>
  (maybeMaskedPattern ??= new RegExp(`(?:test|live)_|\\\\u|"(?:${SECRET_NAME}|${SECRET_OBJECT})"`, 'i')).test(text);
/** A JSON string token, possibly cut off by the end of the text. */
const STRING_TOKEN = /"((?:[^"\\]|\\.)*)("|\\?$)/y;

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

/**
 * Keys anywhere in plain text (a query string, a body that is not JSON); `cut` when the text may end
 * in the middle of one (a body cut at the limit), so that a key's prefix at the very end is hidden too.
 */
export function maskKeysInText(text: string, cut = false): string {
  const masked = text.replace(KEYS_IN_TEXT, '$1…$2');
  return cut ? masked.replace(KEY_CUT_AT_END, '$1…') : masked;
}

/** A query string: keys masked wherever they are, and the values of secret-named parameters hidden. */
export function maskQuery(query: string): string {
  if (query === '') return query;
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at === -1) return maskKeysInText(pair);
      const name = pair.slice(0, at);
      const value = safeDecode(pair.slice(at + 1));
      if (KEY.test(value)) return `${name}=${maskKeysInText(value, true)}`;
      if (isSecretName(safeDecode(name))) return `${name}=…`;
      const masked = maskKeysInText(value);
      return masked === value ? pair : `${name}=${masked}`;
    })
    .join('&');
}

/** A body with every API key, every secret-named member and every custom header value masked. */
export function maskBody(text: string): string {
  return maybeMasked(text) ? scanBody(text) : text;
}

/** maskBody's scan of every JSON token (exported for the test that checks the shortcut against it). */
export function scanBody(text: string): string {
  let out = '';
  let copied = 0;
  /** For each open object or array: whether its string values are all secrets. */
  const secretScopes: boolean[] = [];
  let memberName: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '[') {
      secretScopes.push((memberName !== null && isSecretObject(memberName)) || secretScopes.at(-1) === true);
      memberName = null;
    } else if (c === '}' || c === ']') {
      secretScopes.pop();
    } else if (c === ',') {
      memberName = null;
    } else if (c === '"') {
      STRING_TOKEN.lastIndex = i;
      const token = STRING_TOKEN.exec(text);
      if (!token) break;
      const end = i + token[0].length;
      const value = decode(token[1]!);
      const closed = token[2] === '"';
      if (closed && /^\s*:/.test(text.slice(end, end + 8))) {
        memberName = value;
      } else {
        const secret =
          (memberName !== null && isSecretName(memberName) && !(memberName === 'token' && TOKEN_SYMBOLS.has(value))) || secretScopes.at(-1) === true;
        const masked = secret ? (KEY.test(value) ? maskSecret(value) : '…') : maskKeysInText(value, !closed);
        if (masked !== value) {
          out += `${text.slice(copied, i)}"${JSON.stringify(masked).slice(1, -1)}${closed ? '"' : ''}`;
          copied = end;
        }
      }
      i = end - 1;
    }
  }
  return maskKeysInText(out + text.slice(copied), true);
}

/** A JSON string's content, unescaped; as written when the escapes are broken (a cut body). */
function decode(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    // A JSON string literal parses to a string; the check keeps the compiler honest without a cast.
    const decoded: unknown = JSON.parse(`"${raw}"`);
    return typeof decoded === 'string' ? decoded : raw;
  } catch {
    return raw;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
