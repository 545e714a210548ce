/**
 * The default keys as `GET /__emulator/keys` answers them and `emulator.keys` holds them. Hand-written
 * for their doc comments and importing nothing (a consumer's compiler reaches no package through
 * them); ./schemas/emulator.ts checks at compile time that its `DefaultKeys` schema produces exactly this.
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
