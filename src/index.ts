/**
 * The programmatic API: start the emulator inside your own test suite, and verify webhooks in your
 * receiver. `svc dev` is built on the same functions. Every type reachable from here must
 * type-check in a consumer's strict project without our devDependencies' types
 * (test/package/consumer.test.ts holds this).
 */
export { startEmulator, type Emulator, type StartEmulatorOptions, type EmulatorConfigInput } from './server/start.js';
export { manualClock, systemClock, type Clock } from './clock/clock.js';
export type { EmulatorConfig, PinnedKeys } from './config/defaults.js';
export type { DefaultKeys, EnvironmentKeys } from './contract/default-keys.js';
export type { LookupFn } from './domain/lookup.js';
export type { AdvanceReport, FaultControl, JournalFilter } from './server/public-types.js';
export type { ChainPayment, ChainPayOptions, EmulatorChains, LocalChainInfo } from './server/public-types.js';
export type {
  ChaosSpec as WebhookChaosSpec,
  Fault,
  FaultAction,
  FaultMatch,
  FaultSpec,
  JournalEntry,
  JournalPrincipal,
  SnapshotInfo,
} from './contract/testing-types.js';
export {
  createClient,
  type Client,
  type ClientError,
  type ClientInput,
  type ClientOperationId,
  type ClientOptions,
  type ClientResult,
} from './client/typed.js';
export type {
  Delivery,
  DeliveryDetail,
  Invoice,
  Merchant,
  PartnerInvoice,
  Payment,
  WebhookConfiguration,
  ErrorCode,
  OperationId,
} from './contract/index.js';
export type {
  EmulatorEvent,
  EmulatorListener,
  RequestEvent,
  WarningEvent,
  ErrorEvent,
  DeliverySentEvent,
  DeliveryResultEvent,
  ChainTransferEvent,
  ChainConfirmedEvent,
} from './server/events.js';
export {
  verifyWebhook,
  signatureHeader,
  computeSignature,
  SIGNATURE_HEADER,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
  type VerifyOptions,
} from './webhooks/signature.js';
export type { WebhookEvent, InvoiceEventType, InvoiceStatus } from './webhooks/envelope.js';
export { verify, type VerifyRunOptions, type VerifyReport, type CheckResult, type Outcome as CheckOutcome } from './fidelity/verify/index.js';
