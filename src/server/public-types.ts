/**
 * Shapes of the in-process API (src/index.ts: `startEmulator`'s emulator) that do not go on the wire,
 * kept apart from the modules that build them. Those import the database layer, and a consumer's
 * compiler reads every declaration file the API's types reach: with `skipLibCheck: false` that would
 * mean better-sqlite3's types, which are ours to install, not theirs. Import nothing here that reaches
 * src/store/. The wire shapes themselves are in src/contract/ (testing-types.ts, default-keys.ts).
 */
import type { Fault, FaultSpec } from '../contract/testing-types.js';

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

/** Which journal entries to return. Every field narrows; none means all. */
export interface JournalFilter {
  /** `GET`, `POST`, … (any case). */
  method?: string;
  /** A path prefix, e.g. `/v1/invoices`. */
  path?: string;
  status?: number;
  /** Requests whose path or response body names this invoice. */
  invoiceId?: string;
  /** true: only the dashboard's own requests; false: leave them out; absent: both. */
  fromDashboard?: boolean;
  /** At most this many, newest first (default: all). */
  limit?: number;
}

/** `emulator.faults`: the in-process side of `/__emulator/faults`. */
export interface FaultControl {
  /** Adds a fault; throws the HTTP API's error (`validation_failed`, `param` naming the field) for a spec it would refuse. */
  add(spec: FaultSpec): Fault;
  /** The faults in force, oldest first. */
  list(): Fault[];
  /** Removes the fault `id`, or every fault; returns how many were removed. */
  clear(id?: string): number;
}

/** A local chain (`startEmulator({ chains: true })`, CONTRACT §14), as `GET /__emulator/chains` lists it. */
export interface LocalChainInfo {
  /** The network's id, which is also the node's chain id. */
  networkId: number;
  name: string;
  /** `{baseUrl}/__emulator/chains/{networkId}/rpc`: give it to viem, ethers or a wallet. */
  rpcUrl: string;
  blockNumber: number;
  /** Blocks a payment's block needs, its own included, before the payment is confirmed. */
  confirmations: number;
  tokens: { symbol: string; contractAddress: string; decimals: number }[];
  /** anvil's default accounts, each with 10,000 ETH and 1,000,000 USDC. */
  accounts: { address: string; privateKey: string }[];
}

/** How `emulator.chains.pay` pays (every field optional). */
export interface ChainPayOptions {
  /** The network (default: the invoice's first route with a local chain). */
  networkId?: number;
  /** The token's symbol (default: the route's first). */
  token?: string;
  /** In token units (default: what is left to pay). */
  amount?: string;
  /** Which default account sends it, 0–9 (default 0). */
  account?: number;
  /** Mine the blocks its confirmation needs before resolving (default true). */
  confirm?: boolean;
}

/** A transfer `emulator.chains.pay` signed and sent, and where it left the invoice. */
export interface ChainPayment {
  txHash: string;
  networkId: number;
  token: string;
  amount: string;
  from: string;
  to: string;
  /** The invoice's status once the transfer was processed (and confirmed, unless `confirm: false`). */
  invoiceStatus: string;
}

/** `emulator.chains`: the local chains in-process (what `/__emulator/chains` and `svc chain` do). */
export interface EmulatorChains {
  list(): Promise<LocalChainInfo[]>;
  /** Mines `blocks` blocks (default 1) and processes them before resolving (payments credited and confirmed). */
  mine(networkId: number, blocks?: number): Promise<LocalChainInfo>;
  /** Pays an invoice with a real transfer, signed by a funded account's key, on its local chain. */
  pay(invoiceId: string, options?: ChainPayOptions): Promise<ChainPayment>;
}
