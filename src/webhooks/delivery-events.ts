/** What the dispatcher reports as it works; `svc dev` renders these as `-->`/`<--` lines or NDJSON. */
export type DeliveryEvent =
  | {
      type: 'delivery.sent';
      deliveryId: string;
      eventId: string;
      eventType: string;
      url: string;
      attempt: number;
      trigger: 'scheduled' | 'manual';
    }
  | {
      type: 'delivery.result';
      deliveryId: string;
      eventId: string;
      eventType: string;
      url: string;
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
