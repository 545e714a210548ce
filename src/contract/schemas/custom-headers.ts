import * as z from 'zod';

/** Headers the emulator sets itself; a configuration may not override them (CONTRACT §5). */
export const RESERVED_HEADERS = ['content-type', 'content-length', 'host', 'user-agent', 'x-service-signature'];
/**
 * Hop-by-hop and framing headers (CONTRACT §8): they describe the connection or the message's
 * framing, which the HTTP client owns; undici refuses most of them, and every delivery would fail.
 */
const CONNECTION_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect', 'host', 'content-length'];
/** RFC 9110 §5.6.2 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 §5.5 field value, restricted to what every client sends as is: visible ASCII, space, tab. */
const VALUE = /^[\x20-\x7e\t]*$/;

/** Why a custom header is refused, or null; names and values come from the client, so messages show them escaped. */
function headerProblem(name: string, value: string, seen: Set<string>): string | null {
  const shown = JSON.stringify(name);
  if (!TOKEN.test(name)) return `${shown} is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_\`|~ only).`;
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.includes(lower)) return `${name} is set by the emulator and cannot be a custom header.`;
  if (CONNECTION_HEADERS.includes(lower) || lower.startsWith('proxy-')) {
    return `${name} is a connection or framing header, which the emulator's HTTP client controls; it cannot be a custom header.`;
  }
  if (seen.has(lower)) return `${name} is given twice (header names are case-insensitive).`;
  seen.add(lower);
  if (/[\r\n\0]/.test(value)) return `The value of ${name} must not contain CR, LF or NUL.`;
  if (!VALUE.test(value)) return `The value of ${name} may only hold visible ASCII characters, spaces and tabs.`;
  if (value.length > 4096) return `The value of ${name} is longer than 4096 characters.`;
  return null;
}

export const customHeadersSchema = () =>
  z
    .record(z.string(), z.string({ error: 'customHeaders values must be strings.' }), {
      error: 'customHeaders must be an object of header name to value.',
    })
    .superRefine((headers, ctx) => {
      const names = Object.keys(headers);
      if (names.length > 20) ctx.addIssue({ code: 'custom', message: `customHeaders has ${names.length} headers; the limit is 20.` });
      const seen = new Set<string>();
      for (const name of names) {
        const problem = headerProblem(name, headers[name]!, seen);
        if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
      }
    })
    .meta({
      maxProperties: 20,
      propertyNames: { type: 'string', pattern: TOKEN.source },
      additionalProperties: { type: 'string', pattern: VALUE.source, maxLength: 4096 },
      description:
        'Extension: headers added to every delivery. At most 20; names are HTTP tokens, values visible ASCII, spaces and tabs; ' +
        'reserved (Content-Type, Content-Length, Host, User-Agent, X-Service-Signature) and connection headers (Connection, Keep-Alive, ' +
        'Transfer-Encoding, TE, Trailer, Upgrade, Expect, Proxy-*) are refused.',
    });
