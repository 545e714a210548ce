/**
 * Shapes the public API (src/index.ts) hands out, kept apart from the modules that build them. Those
 * import the database layer, and a consumer's compiler reads every declaration file the API's types
 * reach: with `skipLibCheck: false` that would mean better-sqlite3's types, which are ours to
 * install, not theirs. Import nothing here that reaches src/store/.
 */

/** The default partner and its merchants, created at first start (CONTRACT §1). */
export interface DefaultKeys {
  partnerId: string;
  test: EnvironmentKeys;
  live: EnvironmentKeys;
}

/** The default partner's key and its merchant's id and key in one environment. */
export interface EnvironmentKeys {
  partnerKey: string;
  merchantKey: string;
  merchantId: string;
}

/** What `advanceClock` did. */
export interface AdvanceReport {
  /** Emulator time before and after, in milliseconds since the epoch. */
  from: number;
  to: number;
  /** Invoices that expired on the way. */
  expired: number;
  /** Webhook delivery attempts that fell due and were made. */
  attempts: number;
}

/** Resolves a host name to its addresses (IPv4 and/or IPv6 literals). */
export type LookupFn = (hostname: string) => Promise<string[]>;
