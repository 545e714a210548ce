// Apart from connect.ts so that the CLI can show a URL without loading the driver.

/**
 * The URL as banners, logs and errors may show it: `postgres://user@host:port/name`, without the
 * password (CONTRACT §12) or any query parameter (which may carry one: `?password=…`).
 */
export function describePostgresUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'postgres://(unparseable URL)';
  }
  const user = parsed.username ? `${parsed.username}@` : '';
  return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
}
