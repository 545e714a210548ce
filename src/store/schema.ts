import type { Generated } from 'kysely';
import type { Environment } from '../domain/environment.js';

/**
 * The database as kysely sees it. Times are integers (milliseconds of emulator time), booleans are
 * 0/1 and lists are JSON text, because that is what SQLite stores; presenters turn rows into API shapes.
 */
export interface Database {
  meta: MetaTable;
  partners: PartnersTable;
  api_keys: ApiKeysTable;
  merchants: MerchantsTable;
  invoices: InvoicesTable;
  webhook_configs: WebhookConfigsTable;
  idempotency_keys: IdempotencyKeysTable;
  payments: PaymentsTable;
  events: EventsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  listeners: ListenersTable;
  local_chains: LocalChainsTable;
  chain_transfers: ChainTransfersTable;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface PartnersTable {
  id: string;
  name: string;
  created_at: number;
}

export type KeyKind = 'partner' | 'merchant';

export interface ApiKeysTable {
  /** SHA-256 of the key, hex: the key itself is never stored (CONTRACT §1). */
  hash: string;
  kind: KeyKind;
  environment: Environment;
  partner_id: string;
  merchant_id: string | null;
  /** First characters of the key and its last four, for listings (`pt_test_ab…wxyz`). */
  hint: string;
  created_at: number;
}

export interface MerchantsTable {
  /** Insertion order (lists order by created_at and id instead: repos/list-order.ts). */
  seq: Generated<number>;
  id: string;
  partner_id: string;
  environment: Environment;
  organization_id: string;
  external_tenant_id: string;
  name: string;
  email: string;
  integration_status: IntegrationStatus;
  dashboard_access: number;
  auto_payout_enabled: number;
  /** JSON array of enabled networkIds, or null for every chain the environment enables. */
  network_ids: string | null;
  created_at: number;
  updated_at: number;
}

export interface InvoicesTable {
  seq: Generated<number>;
  id: string;
  merchant_id: string;
  partner_id: string;
  environment: Environment;
  status: InvoiceStatus;
  amount: string;
  amount_received: string;
  reference_id: string | null;
  lock_network_id: number | null;
  lock_token: string | null;
  /** The `addresses` array exactly as the API returns it, JSON. */
  addresses: string;
  expires_at: number;
  created_at: number;
  updated_at: number;
  /** The sequence number of the invoice's latest event. */
  last_sequence: number;
  /** Payments seen but not yet confirmed: while any is, the invoice does not expire. */
  pending_payments: Generated<number>;
}

export interface WebhookConfigsTable {
  id: string;
  partner_id: string;
  environment: Environment;
  url: string;
  secret: string;
  /** JSON object of header name to value. */
  custom_headers: string;
  enabled: number;
  created_at: number;
  updated_at: number;
}

export interface IdempotencyKeysTable {
  /** SHA-256 over (principal, environment, endpoint, key[, externalTenantId]). */
  scope: string;
  /** SHA-256 of the canonical JSON of the request body. */
  fingerprint: string;
  status: number;
  /** The first response's body, byte for byte, replayed as is. */
  response: string;
  created_at: number;
  expires_at: number;
}

export interface PaymentsTable {
  seq: Generated<number>;
  id: string;
  invoice_id: string;
  network_id: number;
  token: string;
  amount: string;
  tx_hash: string;
  confirmed: number;
  created_at: number;
  confirmed_at: number | null;
}

/** The outbox: an event is written in the same transaction as the change that causes it. */
export interface EventsTable {
  seq: Generated<number>;
  /** `<invoiceId>-<sequence>`. */
  id: string;
  invoice_id: string;
  sequence: number;
  type: string;
  environment: Environment;
  partner_id: string;
  merchant_id: string;
  /** The envelope exactly as it is signed and sent. */
  payload: string;
  created_at: number;
}

// The closed lists are the contract's (src/contract/enums.ts).
export type { DeliveryStatus, DeliveryTarget } from '../contract/enums.js';
import type { DeliveryStatus, DeliveryTarget, IntegrationStatus, InvoiceEventType, InvoiceStatus } from '../contract/enums.js';

export interface DeliveriesTable {
  seq: Generated<number>;
  id: string;
  event_id: string;
  event_type: InvoiceEventType;
  invoice_id: string;
  merchant_id: string;
  partner_id: string;
  environment: Environment;
  target: DeliveryTarget;
  url: string;
  status: DeliveryStatus;
  attempt_count: number;
  scheduled_attempts: number;
  /** 1 while an attempt is running; cleared at start, so a crash mid-attempt retries it. */
  in_flight: number;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** The claim holding the delivery (a token per claim), while in flight; null otherwise (issue 28). */
  lease_token: string | null;
  /** Wall-clock ms when the claim's lease ends: past it, another replica may take the delivery. */
  lease_until: number | null;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  number: number;
  trigger: 'scheduled' | 'manual';
  url: string;
  started_at: number;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  /** Webhook chaos the attempt was sent with (`duplicate`, `delay`, …, comma-separated), or null. */
  chaos: string | null;
}

/** A `svc webhook listen` registration: an extra delivery target of a partner in one environment. */
export interface ListenersTable {
  partner_id: string;
  environment: Environment;
  /** Stable per partner and environment, so the developer's app keeps verifying across restarts. */
  secret: string;
  events: string | null;
  forward_to: string;
  /** 0 once the listener said goodbye: no new deliveries are created for it. */
  active: number;
  created_at: number;
  updated_at: number;
}

/**
 * A local chain of `svc dev --chains` (CONTRACT §14; SQLite only, repos/chains.ts): the last block
 * the watcher turned into payments, and the node's state as anvil dumped it.
 */
export interface LocalChainsTable {
  network_id: number;
  last_block: number;
  /** anvil_dumpState's answer, or null until the first save. */
  state: string | null;
  updated_at: number;
}

/** An ERC-20 Transfer seen on a local chain to an invoice's deposit address: credited or not. */
export interface ChainTransfersTable {
  id: string;
  network_id: number;
  tx_hash: string;
  log_index: number;
  block_number: number;
  invoice_id: string;
  contract_address: string;
  /** The token's symbol when svc accepts the contract on this network; null for another token. */
  token: string | null;
  sender: string;
  amount: string;
  /** The payment the transfer became; null when it credits nothing. */
  payment_id: string | null;
  /** Why it credits nothing; null when it did. */
  reason: string | null;
  created_at: number;
}
