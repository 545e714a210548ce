import { ApiRefusedError } from '../../../../client/errors.js';
import type { InvoiceEventType } from '../../../../contract/enums.js';
import type { ThrowingClient } from '../../../../client/throwing.js';
import type { AttemptData, AttemptLine, DeliveryData, DeliveryDetailData, DeliveryStatus } from '../../../views/delivery.js';

/** Filters the API applies itself; a delivery's event type and invoice never change. */
export interface PollFilters {
  eventType?: InvoiceEventType | undefined;
  invoiceId?: string | undefined;
}

const PAGE = 100;
/** At most this many pages of new deliveries per poll (1,000 deliveries in one interval). */
const MAX_PAGES = 10;
const CONCURRENCY = 4;

interface Known {
  count: number;
  status: DeliveryStatus;
}

/**
 * Finds the delivery attempts that are new since the last look, with nothing but the public API
 * (`GET /v1/partner/webhook/deliveries`, newest first by creation): `tail` against a remote
 * deployment, and its catch-up after the emulator's stream dropped.
 *
 * The cursor is what we know of each delivery: its attemptCount. A poll reads the list from the
 * newest until a page holds a delivery it already knows (everything newer is new), and fetches one
 * by one the deliveries it knows to be in flight (pending, retrying) that were not on those pages,
 * since their retries happen far down the list. A delivery whose count grew is fetched in full and
 * its new attempts are reported. Not seen: a resend of an already finished delivery that is not
 * among the newest page, and more than 1,000 new deliveries within one poll.
 */
export class AttemptPoller {
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly client: ThrowingClient,
    private readonly filters: PollFilters,
  ) {}

  /** Remembers where things stand without reporting anything: tail shows attempts from now on. */
  async baseline(): Promise<void> {
    for (const d of (await this.list({})).data) this.remember(d);
    // In-flight deliveries older than the first page: their next attempts are news too.
    for (const status of ['pending', 'retrying'] as const) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await this.list({ status, startingAfter: cursor });
        for (const d of res.data) this.remember(d);
        if (!res.hasMore) break;
        cursor = res.data.at(-1)!.id;
      }
    }
  }

  /** An attempt learned elsewhere (the emulator's stream): not to be reported again. */
  observe(line: AttemptLine): void {
    const k = this.known.get(line.deliveryId);
    if (!k || line.attempt >= k.count) this.known.set(line.deliveryId, { count: line.attempt, status: line.status });
  }

  /** The attempts made since the last poll, oldest first. */
  async poll(): Promise<AttemptLine[]> {
    const seen = new Set<string>();
    const changed: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await this.list({ startingAfter: cursor });
      let reachedKnown = false;
      for (const d of res.data) {
        seen.add(d.id);
        const k = this.known.get(d.id);
        if (k) reachedKnown = true;
        if (d.attemptCount > (k?.count ?? 0)) changed.push(d.id);
        else this.remember(d);
      }
      if (reachedKnown || !res.hasMore) break;
      cursor = res.data.at(-1)!.id;
    }

    const details = new Map<string, DeliveryDetailData>();
    const inFlight = [...this.known].filter(([id, k]) => !seen.has(id) && (k.status === 'pending' || k.status === 'retrying')).map(([id]) => id);
    await eachLimited(inFlight, async (id) => {
      const d = await this.detail(id);
      if (!d) this.known.delete(id);
      else if (d.attemptCount > this.known.get(id)!.count) {
        details.set(id, d);
        changed.push(id);
      } else this.remember(d);
    });
    await eachLimited(
      changed.filter((id) => !details.has(id)),
      async (id) => {
        const d = await this.detail(id);
        if (d) details.set(id, d);
      },
    );

    const lines: AttemptLine[] = [];
    for (const id of changed) {
      const d = details.get(id);
      if (!d) continue;
      const from = this.known.get(id)?.count ?? 0;
      for (const a of d.attempts) if (a.number > from) lines.push(attemptOf(d, a));
      this.remember(d);
    }
    return lines.sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || a.attempt - b.attempt);
  }

  private remember(d: DeliveryData): void {
    this.known.set(d.id, { count: d.attemptCount, status: d.status });
  }

  private async list(params: { status?: DeliveryStatus; startingAfter?: string | undefined }) {
    const res = await this.client.listDeliveries({ query: { limit: PAGE, ...params, eventType: this.filters.eventType, invoiceId: this.filters.invoiceId } });
    return res.data;
  }

  /** The full record, or null when it is gone (a reset emulator). */
  private async detail(id: string): Promise<DeliveryDetailData | null> {
    try {
      return (await this.client.getDelivery({ params: { id } })).data;
    } catch (error) {
      if (error instanceof ApiRefusedError && error.status === 404) return null;
      throw error;
    }
  }
}

/**
 * An attempt of a fetched delivery as tail prints it. The record says the delivery's status and
 * next attempt only as of its latest attempt; for earlier ones (several attempts between two polls)
 * the status is inferred (a 2xx succeeded, anything else was to be retried) and the next attempt is
 * left out.
 */
export function attemptOf(d: DeliveryDetailData, a: AttemptData): AttemptLine {
  const latest = a.number === d.attemptCount;
  const ok = a.responseStatus !== null && a.responseStatus >= 200 && a.responseStatus < 300;
  return {
    deliveryId: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    invoiceId: d.invoiceId,
    environment: d.environment,
    url: d.url,
    // A real deployment's records have no `target` (an emulator extension): it has webhook deliveries only.
    target: d.target ?? 'webhook',
    attempt: a.number,
    trigger: a.trigger,
    startedAt: a.startedAt,
    durationMs: a.durationMs,
    responseStatus: a.responseStatus,
    ok,
    error: a.error,
    status: latest ? d.status : ok ? 'succeeded' : 'retrying',
    nextAttemptAt: latest ? d.nextAttemptAt : null,
  };
}

async function eachLimited<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}
