import type { AttemptTrigger, DeliveryStatus, DeliveryTarget, Environment } from '../contract/enums.js';

/**
 * Where a delivery goes: the partner's webhook configuration, or the listener `svc webhook listen`
 * registered (an emulator extension).
 */
export type { DeliveryTarget } from '../contract/enums.js';

/** Fields every delivery event carries: which event went where. */
interface DeliveryEventBase {
  partnerId: string;
  environment: Environment;
  invoiceId: string;
  /** The delivery (one event to one target), as in `GET /v1/partner/webhook/deliveries/{id}`. */
  deliveryId: string;
  /** The webhook event's id (`<invoiceId>-<sequence>`), the envelope's `id`. */
  eventId: string;
  /** e.g. `invoice.paid`. */
  eventType: string;
  /** Where it is sent: the partner's webhook URL, or the local address a `svc webhook listen` forwards to. */
  url: string;
  /** `webhook` (the partner's configuration) or `listener` (`svc webhook listen`): an extension. */
  target: DeliveryTarget;
  /** 1-based number of this attempt within the delivery. */
  attempt: number;
  /** `scheduled` for the first attempt and automatic retries; `manual` for a resend. */
  trigger: AttemptTrigger;
}

/** An attempt has started: the request is on its way. A `delivery.result` with the same `deliveryId` and `attempt` follows. */
export interface DeliverySentEvent extends DeliveryEventBase {
  type: 'delivery.sent';
}

/** An attempt has finished and its outcome is stored. */
export interface DeliveryResultEvent extends DeliveryEventBase {
  type: 'delivery.result';
  /** When the attempt started, emulator time (ISO 8601, UTC). */
  startedAt: string;
  /** Whether the receiver answered 2xx. */
  ok: boolean;
  /** The receiver's HTTP status, or null when there was no response (timeout, refused, reset). */
  responseStatus: number | null;
  durationMs: number;
  /** Why the attempt failed, as `<kind>: <detail>` (e.g. `http_status: 500 Internal Server Error`); null when ok. */
  error: string | null;
  /** The delivery's status after this attempt. */
  status: DeliveryStatus;
  /** When the next automatic attempt is due (emulator time, ISO 8601), or null when none is. */
  nextAttemptAt: string | null;
}

/** What the dispatcher reports as it works; `svc dev` renders these as `-->`/`<--` lines or NDJSON. */
export type DeliveryEvent = DeliverySentEvent | DeliveryResultEvent;
