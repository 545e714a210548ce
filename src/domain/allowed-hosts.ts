/**
 * Host names as the allowed-hosts check (src/server/http/host-check.ts) compares them, and the
 * validation of `allowedHosts` entries for the config file and `--allowed-host`. Pure.
 */
import { isIP } from 'node:net';

/**
 * The host part of a `Host` header value (or a bare host): lower-case, without the port, the IPv6
 * brackets and a trailing dot. Null when it is not a host at all.
 */
export function hostnameOf(value: string): string | null {
  let host = value.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end === -1) return null;
    const rest = host.slice(end + 1);
    if (rest !== '' && !/^:\d*$/.test(rest)) return null;
    host = host.slice(1, end);
    return isIP(host) === 6 ? host : null;
  }
  const colon = host.indexOf(':');
  if (colon !== -1) {
    if (!/^\d*$/.test(host.slice(colon + 1))) return isIP(host) === 6 ? host : null;
    host = host.slice(0, colon);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  return /^[a-z0-9._-]+$/.test(host) ? host : null;
}

/**
 * One `allowedHosts` entry as the check compares it, or null when it cannot be a host (a URL, a
 * path, spaces). `Host:port` is accepted and the port dropped, since the check ignores ports.
 */
export function normalizeAllowedHost(entry: string): string | null {
  const trimmed = entry.trim().toLowerCase();
  if (trimmed === 'all') return 'all';
  if (trimmed.startsWith('.')) {
    const rest = hostnameOf(trimmed.slice(1));
    return rest === null || rest === '' ? null : `.${rest}`;
  }
  const host = hostnameOf(trimmed);
  return host === '' ? null : host;
}

/** The reason an `allowedHosts` entry is refused, for config and flag errors; null when it is fine. */
export function allowedHostProblem(entry: string): string | null {
  if (normalizeAllowedHost(entry) !== null) return null;
  return `${JSON.stringify(entry)} is not a host name or address (give the host only, e.g. my-laptop.local, 192.168.1.20, .example.test, or all)`;
}
