/**
 * Load for the cluster tests: writers that create invoices through a client (the proxy, usually),
 * each create with its own Idempotency-Key, retried with the same key as a careful client would while
 * the answer says "try again" (a cut connection, 502 from the balancer, 503, 409 in progress), and a
 * tally of every answer. What the receiver got, counted by envelope id.
 */
import type { ReceivedRequest } from '../../helpers/receiver.js';
import type { PlainClient } from './plain-client.js';

export interface Tally {
  /** Idempotency-Key → invoice id, for every create acknowledged (201, or a 200 replay). */
  acknowledged: Map<string, string>;
  /** Answers by status, `cut` for a request that got none. */
  answers: Map<string, number>;
  /** Answers no retry policy covers: the test fails on any. */
  unexpected: string[];
}

export interface Writers {
  tally: Tally;
  /** Lets every writer finish its current create (acknowledged, however many retries it takes), then resolves. */
  stop(): Promise<void>;
}

const RETRY = new Set(['cut', '502', '503']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function newTally(): Tally {
  return { acknowledged: new Map(), answers: new Map(), unexpected: [] };
}

/** One create, retried with its key until acknowledged; resolves to the invoice id, or undefined after an unexpected answer. */
export async function createInvoice(
  client: PlainClient,
  keys: { partnerKey: string; merchantId: string },
  key: string,
  tally: Tally,
): Promise<string | undefined> {
  for (;;) {
    const reply = await client.call('POST', '/v1/partner/invoices', {
      key: keys.partnerKey,
      idempotencyKey: key,
      body: { merchantId: keys.merchantId, amount: '12.50', referenceId: key },
    });
    const kind = reply.cut ? 'cut' : String(reply.status);
    tally.answers.set(kind, (tally.answers.get(kind) ?? 0) + 1);
    if (!reply.cut && (reply.status === 201 || reply.status === 200)) {
      tally.acknowledged.set(key, reply.body.id as string);
      return reply.body.id as string;
    }
    const inProgress = !reply.cut && reply.status === 409 && reply.body?.error?.code === 'idempotency_key_in_progress';
    if (!RETRY.has(kind) && !inProgress) {
      tally.unexpected.push(`${key}: ${reply.cut ? reply.error.message : `${reply.status} ${reply.text.slice(0, 200)}`}`);
      return undefined;
    }
    // Retry-After says 1 s; the test waits less, as an impatient client would (same key: no double create).
    await sleep(20);
  }
}

/** `count` writers creating without pause until stop(); keys `<prefix><writer>-<n>`. */
export function startWriters(
  client: PlainClient,
  keys: { partnerKey: string; merchantId: string },
  count: number,
  prefix: string,
  tally = newTally(),
): Writers {
  let stopping = false;
  const loops = Array.from({ length: count }, async (_, w) => {
    for (let n = 0; !stopping; n++) await createInvoice(client, keys, `${prefix}${w}-${n}`, tally);
  });
  return {
    tally,
    async stop() {
      stopping = true;
      await Promise.all(loops);
    },
  };
}

/** Polls `check` until it holds (a condition, never a duration); fails naming `what` after the ceiling. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ceilingMs = 60_000): Promise<void> {
  const deadline = Date.now() + ceilingMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${ceilingMs} ms for ${what}`);
    await sleep(25);
  }
}

export interface Envelope {
  id: string;
  type: string;
  data: { invoiceId: string };
}

/** Every envelope the receiver got, in arrival order (duplicates included), with its raw body. */
export function envelopes(requests: readonly ReceivedRequest[]): (Envelope & { raw: string })[] {
  return requests.map((r) => ({ ...(JSON.parse(r.rawBody) as Envelope), raw: r.rawBody }));
}

/** Deliveries received per envelope id. */
export function countByEnvelope(requests: readonly ReceivedRequest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { id } of envelopes(requests)) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/** Reads each acknowledged invoice back through `client`, 8 at a time; the keys whose invoice was not there (or not theirs). */
export async function missingInvoices(client: PlainClient, partnerKey: string, acknowledged: Map<string, string>): Promise<string[]> {
  const missing: string[] = [];
  const entries = [...acknowledged];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let next = entries.pop(); next; next = entries.pop()) {
        const [key, id] = next;
        const reply = await client.call('GET', `/v1/partner/invoices/${id}`, { key: partnerKey });
        if (reply.cut || reply.status !== 200 || reply.body.referenceId !== key) missing.push(`${key} (${reply.cut ? 'cut' : reply.status})`);
      }
    }),
  );
  return missing;
}

export const statusLine = (tally: Tally): string =>
  [...tally.answers]
    .sort()
    .map(([k, v]) => `${k}×${v}`)
    .join(', ');
