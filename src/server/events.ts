/**
 * What the running emulator reports, as a discriminated union on `type`. `svc dev` renders these as
 * lines or NDJSON; `startEmulator({ onEvent })` and `emulator.on(listener)` hand them to your code;
 * tests assert on them. The emulator itself never prints. Members may gain fields, never lose them.
 */
import type { DeliveryResultEvent, DeliverySentEvent } from '../webhooks/delivery-events.js';

export type { DeliveryResultEvent, DeliverySentEvent } from '../webhooks/delivery-events.js';

/**
 * One HTTP request the emulator answered (API, control plane, checkout pages), emitted when its
 * response has been sent. Only emitted while someone listens, so an unobserved emulator pays nothing.
 */
export interface RequestEvent {
  type: 'request';
  /** The `Request-Id` response header, e.g. `req_3f9c1a2b4d5e0000000001`. */
  requestId: string;
  method: string;
  /** The path without the query string, e.g. `/v1/invoices`. */
  path: string;
  /** The HTTP status sent. */
  status: number;
  /** From the request's arrival to the end of its response, in (fractional) milliseconds. */
  durationMs: number;
}

/** Something worth telling whoever runs the emulator that did not fail a request, e.g. unknown body fields that were ignored. */
export interface WarningEvent {
  type: 'warning';
  message: string;
  /** The request it concerns, when there is one. */
  requestId?: string;
}

/**
 * An unexpected failure: a request that failed with a 500 (the contract's errors, 4xx, are not
 * reported here), or the background scheduler (expiry, retries) failing. The emulator keeps serving.
 */
export interface ErrorEvent {
  type: 'error';
  message: string;
  /** The request that failed; absent for the scheduler's errors. */
  requestId?: string;
  stack?: string;
}

/**
 * A local chain (`svc dev --chains`, CONTRACT §14) saw an ERC-20 Transfer to an invoice's deposit
 * address: the payment it became (`credited`, with the invoice's status after it), or why it credits nothing.
 */
export interface ChainTransferEvent {
  type: 'chain.transfer';
  networkId: number;
  txHash: string;
  blockNumber: number;
  invoiceId: string;
  /** The amount in the token's units (exact decimal). */
  amount: string;
  /** The token's symbol, or the contract's address for a token svc does not accept there. */
  token: string;
  credited: boolean;
  /** Why it credits nothing (`credited: false` only). */
  reason?: string;
  /** The invoice's status once credited (`credited: true` only). */
  status?: string;
}

/** A local chain's payment reached its confirmations (CONTRACT §14). */
export interface ChainConfirmedEvent {
  type: 'chain.confirmed';
  networkId: number;
  txHash: string;
  invoiceId: string;
  paymentId: string;
  /** The invoice's status after the confirmation. */
  status: string;
}

/** Everything `onEvent` and `emulator.on(listener)` receive; switch on `event.type`. */
export type EmulatorEvent = RequestEvent | WarningEvent | ErrorEvent | DeliverySentEvent | DeliveryResultEvent | ChainTransferEvent | ChainConfirmedEvent;

/** Receives every {@link EmulatorEvent}; a listener that throws is ignored, never breaks the emulator. */
export type EmulatorListener = (event: EmulatorEvent) => void;
