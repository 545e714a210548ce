/**
 * Cross-site write protection (CONTRACT §8 "Cross-site writes"). Any web page can make the browser
 * send a form post (`application/x-www-form-urlencoded`, `text/plain`, no preflight) to
 * http://127.0.0.1:4747, with the developer's network position; the response stays unreadable, but
 * the write happens. The browser says where such a request comes from: `Sec-Fetch-Site` (Fetch
 * Metadata) in current browsers, `Origin` on every cross-origin POST in all of them. Clients that are
 * not browsers (curl, SDKs, the CLI) send neither, and pass.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../api-error.js';

export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A browser extension's origin. A page cannot send one (`Origin` is the browser's to set), so a
 * request carrying it comes from an extension the user installed, with the access it was granted:
 * a wallet (MetaMask) calling a local chain's RPC from its background (CONTRACT §14).
 */
const EXTENSION_ORIGIN = /^(chrome-extension|moz-extension|safari-web-extension):\/\/[^/]+$/i;

/**
 * Throws 403 `cross_site_request` when the browser marks the request as coming from another site,
 * or its `Origin` is neither `http://<its own Host>` nor the public base URL's origin.
 * `wallets`: a browser extension's origin passes too (a local chain's JSON-RPC endpoint).
 */
export function refuseCrossSite(headers: IncomingHttpHeaders, publicOrigin: string, wallets = false): void {
  if (wallets && headers.origin !== undefined && EXTENSION_ORIGIN.test(headers.origin)) return;
  const site = headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') {
    throw crossSite(`The browser marked this request as coming from another site (Sec-Fetch-Site: ${site}).`);
  }
  const origin = headers.origin;
  if (origin === undefined) return;
  const own = headers.host === undefined ? null : `http://${headers.host}`.toLowerCase();
  const given = origin.toLowerCase();
  if (given === own || given === publicOrigin) return;
  throw crossSite(`It comes from a page at ${printable(origin)}, which is not this emulator.`);
}

function crossSite(reason: string): ApiError {
  return new ApiError(
    403,
    'cross_site_request',
    `${reason} The emulator's control plane, checkout test panel and bind page only accept writes from its own pages or from clients that are not browsers (curl, SDKs, svc).`,
  );
}

/** Client-supplied text in a message: printable ASCII only, and short. */
export function printable(text: string, max = 100): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
