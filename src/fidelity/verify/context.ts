import { randomBytes } from 'node:crypto';
import { OPERATIONS, type OperationId } from '../../contract/operations/index.js';
import { createContractChecker, type ContractChecker } from '../contract/contract-checker.js';
import { at, isRecord, str } from '../json.js';
import { apiCaller, type Answer, type Send, type SendOptions } from './api.js';
import { expectSuccess } from './expect.js';
import { invoiceOf, type Delivered } from './receiver.js';
import { type HookSetup, WebhookHook } from './webhook-hook.js';
import { CheckFailed, CheckSkipped } from './types.js';

/** What a check may use: the deployment over HTTP, the contract checker, and shared set-up made once. */
export interface VerifyContextOptions {
  baseUrl: string;
  partnerKey: string;
  merchantKey: string | undefined;
  /** Reach the receiver through a cloudflared quick tunnel (a deployment not on this machine). */
  tunnel: boolean;
  env: NodeJS.ProcessEnv;
  /** Per request. */
  timeoutMs: number;
  /** How long a check waits for a delivery. */
  deliveryTimeoutMs: number;
}

/** Everything verify creates is marked with this prefix (CONTRACT §13). */
export const MARKER = 'svc-verify-';

export class VerifyContext {
  readonly send: Send;
  readonly partnerKey: string;
  readonly merchantKey: string | undefined;
  readonly baseUrl: string;
  readonly deliveryTimeoutMs: number;
  /** This run's id: every marker, key and reference of the run carries it. */
  readonly run = randomBytes(4).toString('hex');
  readonly hook: WebhookHook;
  private counter = 0;
  private checker: ContractChecker | undefined;
  private merchantMade: Promise<{ merchantId: string; externalTenantId: string }> | undefined;
  private helpers: Promise<string | null> | undefined;
  private control: Promise<boolean> | undefined;

  constructor(readonly options: VerifyContextOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.send = apiCaller(this.baseUrl, options.timeoutMs);
    this.partnerKey = options.partnerKey;
    this.merchantKey = options.merchantKey;
    this.deliveryTimeoutMs = options.deliveryTimeoutMs;
    this.hook = new WebhookHook(this);
  }

  /** The OpenAPI document's checker, built on first use (compiling it takes a moment). */
  get contract(): ContractChecker {
    this.checker ??= createContractChecker();
    return this.checker;
  }

  /** A fresh `svc-verify-<run>-<n>`: referenceId, externalTenantId, Idempotency-Key. */
  marker(): string {
    return `${MARKER}${this.run}-${++this.counter}`;
  }

  /** An operation's path, parameters filled in (no API path is written outside src/contract/). */
  path(id: OperationId, params: Record<string, string> = {}): string {
    return OPERATIONS[id].path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  }

  /** Calls an operation by id: its method and path from the contract, the rest as given. */
  call(id: OperationId, options: Omit<SendOptions, 'method' | 'path'> & { params?: Record<string, string> } = {}): Promise<Answer> {
    const { params, ...rest } = options;
    return this.send({ method: OPERATIONS[id].method, path: this.path(id, params), ...rest });
  }

  /** The merchant key, or a skip: merchant-side checks need one. */
  requireMerchantKey(): string {
    if (!this.merchantKey) throw new CheckSkipped('no merchant key was given (--merchant-key, SVC_MERCHANT_KEY)');
    return this.merchantKey;
  }

  /** The sub-merchant this run creates once (`externalTenantId: svc-verify-…`), for partner invoices. */
  merchant(): Promise<{ merchantId: string; externalTenantId: string }> {
    this.merchantMade ??= (async () => {
      const externalTenantId = this.marker();
      const a = await this.call('createMerchant', {
        key: this.partnerKey,
        idempotencyKey: externalTenantId,
        body: { externalTenantId, name: 'svc verify', email: 'svc-verify@example.com' },
      });
      expectSuccess(a, "the run's sub-merchant");
      return { merchantId: str(a.json, 'merchantId') ?? '', externalTenantId };
    })();
    this.merchantMade.catch(() => (this.merchantMade = undefined));
    return this.merchantMade;
  }

  /** A new partner invoice for the run's merchant (`amount` 10.00 unless `fields` say), marked; set-up, so any success serves. */
  async partnerInvoice(fields: Record<string, unknown> = {}): Promise<Answer> {
    const { merchantId } = await this.merchant();
    const referenceId = this.marker();
    const a = await this.call('createPartnerInvoice', {
      key: this.partnerKey,
      idempotencyKey: referenceId,
      body: { merchantId, amount: '10.00', referenceId, ...fields },
    });
    expectSuccess(a, 'a partner invoice');
    return a;
  }

  /** A new invoice through the merchant key, marked (skips without a merchant key). */
  async merchantInvoice(fields: Record<string, unknown> = {}): Promise<Answer> {
    const key = this.requireMerchantKey();
    const referenceId = this.marker();
    const a = await this.call('createInvoice', { key, idempotencyKey: referenceId, body: { amount: '10.00', referenceId, ...fields } });
    expectSuccess(a, 'a merchant invoice');
    return a;
  }

  /**
   * The test helpers (CONTRACT §6) or a skip: a deployment without them answers an unknown route.
   * Asked once: expiring an invoice that does not exist is 404 `invoice_not_found` where they are.
   */
  async requireTestHelpers(): Promise<void> {
    this.helpers ??= this.call('expireTestInvoice', { key: this.partnerKey, params: { id: '00000000-0000-4000-8000-000000000000' } }).then((a) =>
      str(a.json, 'error', 'code') === 'invoice_not_found'
        ? null
        : `the deployment has no test helpers (POST ${this.path('expireTestInvoice', { id: '…' })} answered ${a.status})`,
    );
    const missing = await this.helpers;
    if (missing) throw new CheckSkipped(missing);
  }

  /** A test-helper payment on an invoice (partner key: it acts on its merchants' invoices). */
  pay(invoiceId: string, body: Record<string, unknown> = {}): Promise<Answer> {
    return this.call('createTestPayment', { key: this.partnerKey, params: { id: invoiceId }, body });
  }

  /** Whether svc's control plane answers (§7): used only to make a wait shorter, never to decide an outcome. */
  hasControlPlane(): Promise<boolean> {
    this.control ??= this.call('getHealth').then(
      (a) => a.status === 200 && str(a.json, 'status') === 'ok',
      () => false,
    );
    return this.control;
  }

  /** The receiver, pointed at by the test webhook, or a skip saying why none can be reached. */
  receiver(): Promise<HookSetup> {
    return this.hook.setup();
  }

  /** The first `count` deliveries of an invoice's events, in arrival order. */
  async deliveriesOf(invoiceId: string, count: number): Promise<Delivered[]> {
    const { receiver } = await this.receiver();
    try {
      return await receiver.waitFor((d) => invoiceOf(d) === invoiceId, count, this.deliveryTimeoutMs);
    } catch (error) {
      const arrived = receiver.deliveries.filter((d) => invoiceOf(d) === invoiceId).map((d) => str(d.envelope, 'type') ?? '?');
      throw new CheckFailed(
        `${count} deliveries for invoice ${invoiceId}`,
        `${error instanceof Error ? error.message : String(error)} (${arrived.join(', ') || 'none'})`,
      );
    }
  }

  /**
   * Reads until `done` holds or the delivery timeout passes (a deployment records an attempt's
   * result a moment after the receiver answered it); returns the last reading either way.
   */
  async poll<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const until = Date.now() + this.deliveryTimeoutMs;
    let value = await read();
    while (!done(value) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      value = await read();
    }
    return value;
  }

  /** Puts back what the run changed (the test webhook) and stops the receiver and tunnel. */
  close(): Promise<string[]> {
    return this.hook.close();
  }
}

/** The invoice's id from an answer's body (`id`). */
export const idOf = (a: Answer): string => str(a.json, 'id') ?? '';

/** The envelope fields of a delivery, typed loosely for the checks. */
export function envelopeOf(d: Delivered): { id: string; type: string; data: Record<string, unknown> } {
  const data = at(d.envelope, 'data');
  return { id: str(d.envelope, 'id') ?? '', type: str(d.envelope, 'type') ?? '', data: isRecord(data) ? data : {} };
}
