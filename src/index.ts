/**
 * The programmatic API: start the emulator inside your own test suite, and verify webhooks in your
 * receiver. `svc dev` is built on the same functions. Every type reachable from here must
 * type-check in a consumer's strict project without our devDependencies' types
 * (test/package/consumer.test.ts holds this).
 */
export { startEmulator, type Emulator, type StartEmulatorOptions, type EmulatorConfigInput } from './server/start.js';
export { manualClock, systemClock, type Clock } from './clock/clock.js';
export type { EmulatorConfig, PinnedKeys } from './config/defaults.js';
export type { AdvanceReport, DefaultKeys, EnvironmentKeys, LookupFn } from './server/public-types.js';
export type { SnapshotInfo } from './server/snapshots/files.js';
export type { ChaosSpec as WebhookChaosSpec } from './webhooks/chaos.js';
export type {
  Fault,
  FaultAction,
  FaultControl,
  FaultMatch,
  FaultSpec,
  JournalEntry,
  JournalFilter,
  JournalPrincipal,
} from './server/testing-types.js';
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
