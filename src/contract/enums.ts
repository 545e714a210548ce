/**
 * The contract's closed lists, once: statuses, event types, environments. Free of zod on purpose:
 * the CLI and the client import these, and zod costs ~100 ms to load (docs/decisions.md).
 */

/** The two fully isolated environments; an API key fixes which one a request acts in. */
export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Invoice statuses (CONTRACT §3). */
export const INVOICE_STATUSES = ['CREATED', 'CONFIRMING', 'PARTIALLY_PAID', 'PAID', 'EXPIRED'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Event types of CONTRACT §4, in the order they can first occur. */
export const INVOICE_EVENT_TYPES = [
  'invoice.created',
  'invoice.payment_detected',
  'invoice.partially_paid',
  'invoice.paid',
  'invoice.overpaid',
  'invoice.expired',
  'invoice.paid_late',
] as const;
export type InvoiceEventType = (typeof INVOICE_EVENT_TYPES)[number];

/**
 * Each event type's invoice status after it (CONTRACT §4's table), and whether a payment always
 * caused it (then `data.token` is its symbol; `invoice.created` never has one, `invoice.expired` has
 * one only when a short confirmation led to it).
 */
export const EVENT_CATALOG = {
  'invoice.created': { status: 'CREATED', token: 'never', when: 'The invoice was created.' },
  'invoice.payment_detected': { status: 'CONFIRMING', token: 'always', when: 'A payment is seen, not yet confirmed.' },
  'invoice.partially_paid': { status: 'PARTIALLY_PAID', token: 'always', when: 'The confirmed total is below `amount`.' },
  'invoice.paid': { status: 'PAID', token: 'always', when: 'The confirmed total reaches `amount`. Fulfil orders on this event only.' },
  'invoice.overpaid': { status: 'PAID', token: 'always', when: 'The confirmed total exceeds `amount`; follows `invoice.paid`.' },
  'invoice.expired': { status: 'EXPIRED', token: 'sometimes', when: '`expiresAt` passed before the invoice was paid.' },
  'invoice.paid_late': { status: 'EXPIRED', token: 'always', when: 'A payment confirmed on an EXPIRED invoice.' },
} as const satisfies Record<InvoiceEventType, { status: InvoiceStatus; token: 'never' | 'always' | 'sometimes'; when: string }>;

/** Delivery statuses (CONTRACT §5). */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Where a delivery goes: the partner's webhook, or the listener of `svc webhook listen` (extension). */
export const DELIVERY_TARGETS = ['webhook', 'listener'] as const;
export type DeliveryTarget = (typeof DELIVERY_TARGETS)[number];

/** What started an attempt: the schedule, or a resend. */
export const ATTEMPT_TRIGGERS = ['scheduled', 'manual'] as const;
export type AttemptTrigger = (typeof ATTEMPT_TRIGGERS)[number];

/** A merchant's onboarding: PENDING until its bind page is completed. */
export const INTEGRATION_STATUSES = ['PENDING', 'ACTIVE'] as const;
export type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];

/** Chain families of deposit addresses. */
export const CHAIN_FAMILIES = ['evm', 'tron', 'solana'] as const;
