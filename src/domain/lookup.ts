/**
 * The host-name resolver `startEmulator({ lookup })` takes and the SSRF guard (webhooks/ssrf.ts)
 * calls. Declared alone, importing nothing, so that the public API's declaration of it pulls in
 * neither node:dns nor the database layer.
 */

/** Resolves a host name to its addresses (IPv4 and/or IPv6 literals). */
export type LookupFn = (hostname: string) => Promise<string[]>;
