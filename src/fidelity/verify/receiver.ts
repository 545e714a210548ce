import { createServer, type IncomingMessage } from 'node:http';
import { headerMap, type HeaderMap } from '../contract/exchange.js';
import { parseJson, str } from '../json.js';

/** One webhook delivery as it arrived: the raw body and headers, and when (wall clock, ms). */
export interface Delivered {
  /** The request target (`/svc-verify`). */
  path: string;
  rawBody: string;
  headers: HeaderMap;
  receivedAt: number;
  /** The body parsed; undefined when it is not JSON. */
  envelope: unknown;
  /** What the receiver answered. */
  answered: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/svc-verify`. */
  readonly url: string;
  readonly deliveries: Delivered[];
  /**
   * The deliveries of the next invoice not seen before get these statuses, in turn (then 200); 3xx
   * ones carry a Location. (An invoice's first event is delivered as it is created: there is no
   * time to name it first.)
   */
  answerNextInvoice(statuses: number[]): void;
  /** Resolves with the deliveries matching `test` once there are `count` of them; rejects after `timeoutMs`. */
  waitFor(test: (d: Delivered) => boolean, count: number, timeoutMs: number): Promise<Delivered[]>;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

/** The invoice a delivery is about (`data.invoiceId` of its envelope). */
export const invoiceOf = (d: Delivered): string | undefined => str(d.envelope, 'data', 'invoiceId');

/**
 * The local webhook receiver verify points the test webhook at (directly for a deployment on this
 * machine, through a tunnel otherwise): records every delivery and answers 200, or what a check
 * asked for one invoice's deliveries (retries, redirects).
 */
export async function startReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivered[] = [];
  const plans = new Map<string, number[]>();
  const seen = new Set<string>();
  let nextPlan: number[] | null = null;
  const waiters = new Set<() => void>();

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_BODY) chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const server = createServer((req, res) => {
    read(req)
      .then((rawBody) => {
        const envelope = parseJson(rawBody);
        const invoiceId = str(envelope, 'data', 'invoiceId');
        if (invoiceId !== undefined && !seen.has(invoiceId)) {
          seen.add(invoiceId);
          if (nextPlan) plans.set(invoiceId, nextPlan);
          nextPlan = null;
        }
        const plan = invoiceId === undefined ? undefined : plans.get(invoiceId);
        const status = plan?.shift() ?? 200;
        deliveries.push({ path: req.url ?? '', rawBody, headers: headerMap(req.headers), receivedAt: Date.now(), envelope, answered: status });
        for (const wake of waiters) wake();
        const location = status >= 300 && status < 400 ? { location: `${url}/redirected` } : {};
        res.writeHead(status, { 'content-type': 'text/plain', ...location }).end(status < 300 ? 'ok' : 'svc verify: answered as planned');
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the receiver is not listening on a TCP port');
  const url = `http://127.0.0.1:${address.port}/svc-verify`;

  return {
    url,
    deliveries,
    answerNextInvoice: (statuses) => void (nextPlan = [...statuses]),
    waitFor: (test, count, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = deliveries.filter(test);
          if (found.length < count) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${deliveries.filter(test).length} of ${count} expected deliveries arrived within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
