/**
 * The receiver a webhook URL reaches, for the cap on attempts in flight (CONTRACT §5, issue 40): the
 * URL up to the end of its authority (scheme, host and port), without the path, query or fragment,
 * ASCII letters lower-cased. Capped per exact URL, one tenant cycling `?n=1`, `?n=2`, … against a
 * slow receiver took a slot per URL and delayed everyone else's deliveries.
 *
 * The same rule three times, so that the dispatcher's counts and both engines' claims agree: here,
 * and as SQL for each engine (the claims compute it in the database, with no function of ours).
 * Written plainly (no regular expression in SQLite): the URL up to its first `:` must go on with
 * `//`; the authority ends at the first `/`, `?` or `#` after it. Anything else is its own receiver.
 */
const AUTHORITY = /^[^:]*:\/\/[^/?#]*/;

export function receiverOf(url: string): string {
  return (AUTHORITY.exec(url)?.[0] ?? url).replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';

/** receiverOf in PostgreSQL, for a column `url`. */
export const RECEIVER_SQL_POSTGRES = `translate(coalesce(substring(url from '^[^:]*://[^/?#]*'), url), '${UPPER}', '${LOWER}')`;

/** receiverOf in SQLite (whose lower() is ASCII's), for a column `url`. */
const colon = "instr(url, ':')";
const rest = `substr(url, ${colon} + 3)`;
const end = (c: string) => `iif(instr(${rest}, '${c}') > 0, instr(${rest}, '${c}'), length(${rest}) + 1)`;
export const RECEIVER_SQL_SQLITE = `lower(CASE WHEN ${colon} > 0 AND substr(url, ${colon}, 3) = '://' THEN substr(url, 1, ${colon} + 1 + min(${end('/')}, ${end('?')}, ${end('#')})) ELSE url END)`;
