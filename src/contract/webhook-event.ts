import type { Environment, EVENT_CATALOG, InvoiceEventType } from './enums.js';

/**
 * The webhook event envelope as a type (interface document §2.4, CONTRACT §4), from the event
 * catalog: each type fixes the status it reports and whether a token is present. Written without zod
 * because it is public API (`src/index.ts`), whose declarations may reach no package; the envelope's
 * zod schema (schemas/events.ts) must produce exactly this type, or it does not compile.
 */
type Catalog = typeof EVENT_CATALOG;
type TokenOf<Rule> = Rule extends 'never' ? null : Rule extends 'always' ? string : string | null;

/** One event type's envelope. */
export interface WebhookEventOf<T extends InvoiceEventType> {
  /** `<invoiceId>-<sequence>`: the key to process idempotently on. */
  id: string;
  type: T;
  /** Emulator time, ISO 8601. */
  createdAt: string;
  environment: Environment;
  partnerId: string;
  data: {
    invoiceId: string;
    merchantId: string;
    externalTenantId: string;
    /** The invoice's status after the event: fixed by the type (invoice.paid → PAID). */
    status: Catalog[T]['status'];
    amount: string;
    amountReceived: string;
    /** Symbol of the payment that caused the event; null when none did. */
    token: TokenOf<Catalog[T]['token']>;
    /** Starts at 1 per invoice and grows by one per event, without gaps. */
    sequence: number;
  };
}

/** Any webhook event; `switch (event.type)` narrows its data. */
export type WebhookEvent = { [T in InvoiceEventType]: WebhookEventOf<T> }[InvoiceEventType];
