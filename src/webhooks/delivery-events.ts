/**
 * Where a delivery goes: the partner's webhook configuration, or the listener `svc webhook listen`
 * registered (an emulator extension).
 */
export type DeliveryTarget = 'webhook' | 'listener';

/** What the dispatcher reports as it works; `svc dev` renders these as `-->`/`<--` lines or NDJSON. */
export type DeliveryEvent =
  | {
      type: 'delivery.sent';
      partnerId: string;
      environment: 'test' | 'live';
      invoiceId: string;
      deliveryId: string;
      eventId: string;
      eventType: string;
      url: string;
      target: DeliveryTarget;
      attempt: number;
      trigger: 'scheduled' | 'manual';
    }
  | {
      type: 'delivery.result';
      partnerId: string;
      environment: 'test' | 'live';
      invoiceId: string;
      /** When the attempt started, emulator time. */
      startedAt: string;
      deliveryId: string;
      eventId: string;
      eventType: string;
      url: string;
      target: DeliveryTarget;
      attempt: number;
      trigger: 'scheduled' | 'manual';
      ok: boolean;
      responseStatus: number | null;
      durationMs: number;
      error: string | null;
      /** The delivery's status after this attempt. */
      status: 'pending' | 'retrying' | 'succeeded' | 'failed';
      nextAttemptAt: string | null;
    };
