/**
 * The `Host` check that stops DNS rebinding (CONTRACT §8 "Allowed hosts"). A page on a domain that
 * re-points itself to 127.0.0.1 reaches the emulator as the browser's same origin, so the browser's
 * own rules no longer protect it; the `Host` header it sends still names the attacker's domain. Like
 * vite (`server.allowedHosts`) and webpack-dev-server (`allowedHosts`), a request is served only for
 * a host the emulator knows as its own.
 */
import { isIP } from 'node:net';
import { hostnameOf, normalizeAllowedHost } from '../../domain/allowed-hosts.js';
import { classifyIp, parseIp } from '../../domain/ip.js';

export interface HostCheckOptions {
  /** Config `allowedHosts` / `--allowed-host`: names or addresses; `.example.com` also allows its subdomains; `all` lifts the check. */
  allowedHosts: readonly string[];
  /** Hosts the emulator is known by: its bound address and the host of its public base URL. */
  ownHosts: readonly string[];
}

/** Answers for this many distinct `Host` values are remembered; then the memory starts over. */
const CACHE_LIMIT = 256;

/**
 * Returns `allowed(hostHeader)`: true to serve. Everything is precomputed, and the answer for each
 * distinct `Host` value is cached, so the hot path is one Map lookup.
 */
export function createHostCheck(options: HostCheckOptions): (host: string | undefined) => boolean {
  const entries = options.allowedHosts.map((entry) => normalizeAllowedHost(entry));
  if (entries.includes('all')) return () => true;
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of [...entries, ...options.ownHosts.map((h) => hostnameOf(h))]) {
    if (entry === null || entry === '') continue;
    if (entry.startsWith('.')) {
      suffixes.push(entry);
      exact.add(entry.slice(1));
    } else exact.add(entry);
  }
  const cache = new Map<string, boolean>();
  const decide = (header: string): boolean => {
    const name = hostnameOf(header);
    if (name === null) return false;
    return isLoopbackName(name) || exact.has(name) || suffixes.some((s) => name.endsWith(s));
  };
  return (header) => {
    // HTTP/1.0 tools may send no Host at all; nothing names a foreign site then (Node answers an
    // HTTP/1.1 request without one with 400 itself).
    if (header === undefined) return true;
    let answer = cache.get(header);
    if (answer === undefined) {
      answer = decide(header);
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(header, answer);
    }
    return answer;
  };
}

/** `localhost`, `*.localhost` (RFC 6761: always the machine itself), or a loopback IP literal. */
function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 0) return false;
  const ip = parseIp(name);
  return ip !== null && classifyIp(ip) === 'loopback';
}
