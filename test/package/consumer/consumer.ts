/**
 * What a user of the published package writes (test/package/consumer.test.ts installs the packed
 * tarball next to this file, type-checks it with `strict` and `skipLibCheck: false`, and runs it).
 * It touches every export of the public API, so a type the package leaves out, or one that drags in
 * types the user does not have, fails here as it would in their project. Prints one JSON summary.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  computeSignature,
  manualClock,
  SIGNATURE_HEADER,
  signatureHeader,
  startEmulator,
  systemClock,
  verifyWebhook,
  WebhookVerificationError,
  type AdvanceReport,
  type ChainConfirmedEvent,
  type ChainPayment,
  type ChainPayOptions,
  type ChainTransferEvent,
  type Clock,
  type DefaultKeys,
  type DeliveryResultEvent,
  type DeliverySentEvent,
  type Emulator,
  type EmulatorChains,
  type EmulatorConfig,
  type EmulatorConfigInput,
  type EmulatorEvent,
  type EmulatorListener,
  type EnvironmentKeys,
  type ErrorEvent,
  type InvoiceEventType,
  type InvoiceStatus,
  type LocalChainInfo,
  type LookupFn,
  type PinnedKeys,
  type RequestEvent,
  type StartEmulatorOptions,
  type VerifyOptions,
  type WarningEvent,
  type WebhookEvent,
  type WebhookVerificationErrorCode,
} from 'svc-emulator';
import { createClient, type Client, type ClientResult } from 'svc-emulator/client';

const SECRET = 'whsec_consumer_package_test_0001';

/** One line per event; the `never` makes a new, unhandled event type a compile error here. */
function describe(event: EmulatorEvent): string {
  switch (event.type) {
    case 'request':
      return requestLine(event);
    case 'warning':
      return warningLine(event);
    case 'error':
      return errorLine(event);
    case 'delivery.sent':
      return sentLine(event);
    case 'delivery.result':
      return resultLine(event);
    case 'chain.transfer':
      return transferLine(event);
    case 'chain.confirmed':
      return confirmedLine(event);
    default: {
      const unhandled: never = event;
      return String(unhandled);
    }
  }
}
const requestLine = (e: RequestEvent) => `${e.method} ${e.path} ${e.status} (${e.requestId}, ${e.durationMs >= 0 ? 'timed' : '?'})`;
const warningLine = (e: WarningEvent) => `warning ${e.message}${e.requestId ? ` (${e.requestId})` : ''}`;
const errorLine = (e: ErrorEvent) => `error ${e.message}${e.stack ? ' (with stack)' : ''}`;
const sentLine = (e: DeliverySentEvent) => `--> ${e.eventType} [${e.eventId}] attempt ${e.attempt} ${e.trigger}`;
const transferLine = (e: ChainTransferEvent) => `chain ${e.networkId} ${e.txHash} ${e.amount} ${e.token} ${e.credited ? (e.status ?? '') : (e.reason ?? '')}`;
const confirmedLine = (e: ChainConfirmedEvent) => `chain ${e.networkId} ${e.txHash} confirmed ${e.status}`;
/** Local chains (`startEmulator({ chains: true })`): what a test of a wallet flow would write; not run here. */
async function payOnChain(chains: EmulatorChains, invoiceId: string): Promise<string> {
  const options: ChainPayOptions = { networkId: 84532, token: 'USDC', amount: '1.00', account: 1, confirm: false };
  const list: LocalChainInfo[] = await chains.list();
  const paid: ChainPayment = await chains.pay(invoiceId, options);
  return `${list[0]?.rpcUrl ?? ''} ${paid.txHash} ${paid.invoiceStatus}`;
}
void payOnChain;
const resultLine = (e: DeliveryResultEvent) => `<-- ${e.responseStatus ?? 'ERR'} [${e.eventId}] ${e.status} next=${e.nextAttemptAt ?? 'none'} ok=${e.ok}`;

/** A webhook receiver, as the user's application would have one: it keeps the raw body for verification. */
async function receiver(): Promise<{ url: string; next: () => Promise<{ raw: string; header: string }>; close: () => Promise<void> }> {
  const arrived: { raw: string; header: string }[] = [];
  let wake: (() => void) | undefined;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrived.push({ raw: Buffer.concat(chunks).toString('utf8'), header: String(req.headers[SIGNATURE_HEADER.toLowerCase()] ?? '') });
      res.writeHead(200).end('ok');
      wake?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    async next() {
      while (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return arrived.shift()!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function api(emulator: Emulator, method: string, path: string, key: string, body?: unknown, idempotencyKey?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(`${emulator.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const hook = await receiver();
const events: EmulatorEvent[] = [];
const onEvent: EmulatorListener = (event) => events.push(event);
const config: EmulatorConfigInput = { invoiceLifetimeSeconds: 1800, webhooks: { retrySchedule: [60] } };
const resolveHost: LookupFn = async () => ['127.0.0.1'];
const options: StartEmulatorOptions = { port: 0, db: ':memory:', clock: systemClock(), config, onEvent, lookup: resolveHost };
const emulator: Emulator = await startEmulator(options);

try {
  const keys: DefaultKeys = emulator.keys;
  const test: EnvironmentKeys = keys.test;
  const clock: Clock = emulator.clock;
  const seen: string[] = [];
  const unsubscribe = emulator.on((event) => seen.push(describe(event)));

  const webhook = await api(emulator, 'PUT', '/v1/partner/webhook', test.partnerKey, { url: hook.url, secret: SECRET });
  const created = await api(emulator, 'POST', '/v1/invoices', test.merchantKey, { amount: '12.50' }, `consumer-${Date.now()}`);
  const status = created.body.status as InvoiceStatus;

  // Verify the delivery as a receiver does: the raw body, the header, the shared secret.
  const delivered = await hook.next();
  const verify: VerifyOptions = { toleranceSeconds: 300 };
  const event: WebhookEvent = verifyWebhook(delivered.raw, delivered.header, SECRET, verify);
  const type: InvoiceEventType = event.type;
  let tampered: WebhookVerificationErrorCode | 'accepted' = 'accepted';
  try {
    verifyWebhook(delivered.raw.replace('12.50', '99.99'), delivered.header, SECRET);
  } catch (error) {
    if (error instanceof WebhookVerificationError) tampered = error.code;
  }
  // Signing is public too: a receiver's own tests sign their fixtures with it.
  const t = Math.floor(Date.now() / 1000);
  const selfSigned = signatureHeader(SECRET, t, delivered.raw) === `t=${t},v1=${computeSignature(SECRET, t, delivered.raw)}`;

  // The typed client: the emulator's own, and one made for a base URL (as for a remote service).
  const typed: Client = emulator.client.test;
  const readBack = await typed.getInvoice({ params: { id: String(created.body.id) } });
  const remote = createClient({ baseUrl: emulator.url, partnerKey: test.partnerKey });
  const missing: ClientResult<'getPartnerInvoice'> = await remote.getPartnerInvoice({ params: { id: '00000000-0000-4000-8000-000000000000' } });
  const missingCode = missing.ok ? 'found' : missing.error.code;

  const before = clock.now();
  const report: AdvanceReport = await emulator.advanceClock(3600);
  const clockMoved = clock.now() - before >= 3_600_000;
  // Back to the real time (a reset does it too).
  await emulator.resetClock();
  const clockBack = clock.now() - before < 3_600_000;
  unsubscribe();
  await emulator.reset();
  const afterReset = await api(emulator, 'GET', `/v1/invoices/${String(created.body.id)}`, test.merchantKey);

  const fixed: Clock = manualClock(new Date('2030-01-01T00:00:00Z'));
  const defaults: Pick<EmulatorConfig, 'invoiceLifetimeSeconds'> = { invoiceLifetimeSeconds: 1800 };
  const pinned: PinnedKeys = {};

  console.log(
    JSON.stringify({
      webhookStatus: webhook.status,
      createdStatus: created.status,
      invoiceId: created.body.id,
      status,
      verified: { id: event.id, type, invoiceId: event.data.invoiceId, amount: event.data.amount },
      tampered,
      selfSigned,
      typed: { readBack: readBack.ok ? readBack.data.id : readBack.error.code, missingCode },
      advanced: { by: report.to - report.from, expired: report.expired, clockMoved, clockBack },
      afterReset: afterReset.status,
      eventTypes: [...new Set(events.map((e) => e.type))].sort(),
      seen: seen.filter((l) => l.startsWith('-->') || l.startsWith('<--')),
      fixedClock: new Date(fixed.now()).toISOString(),
      extras: { defaults, pinned },
    }),
  );
} finally {
  await emulator.stop();
  await hook.close();
}
