/**
 * The programmatic API: start the emulator inside your own test suite, and verify webhooks in your
 * receiver. `svc dev` is built on the same functions.
 */
export { startEmulator, type Emulator, type StartEmulatorOptions } from './server/start.js';
export { createApp } from './server/app.js';
export { manualClock, systemClock, type Clock } from './clock/clock.js';
export type { EmulatorConfig } from './config/defaults.js';
export type { DefaultKeys, EnvironmentKeys } from './server/bootstrap.js';
export type { EmulatorEvent } from './server/events.js';
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
