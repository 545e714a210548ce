import { UserError } from '../errors.js';
import type { ResponseBody } from '../contract/schemas/responses.js';
import type { ChaosSpec, FaultSpec } from '../contract/testing-types.js';
import type { OperationId } from '../contract/operations/index.js';
import type { SuccessOf } from '../contract/types.js';
import { send, type HttpRequest, type HttpResponse } from './http.js';

export interface ClientTarget {
  baseUrl: string;
  partnerKey?: string | undefined;
  merchantKey?: string | undefined;
  /**
   * The error for a call that needs a kind of key the target does not have (default: a UserError
   * naming the kind and the ways to give one). The CLI names the flag when `--api-key` gave the
   * other kind.
   */
  missingKey?: (kind: 'partner' | 'merchant', request: { method: string; path: string }) => Error;
  /** Called with each request as it goes out, and the key it carries (the CLI's --verbose). */
  onSend?: (request: { method: string; path: string; kind: KeyKind; key: string | undefined }) => void;
}

export type KeyKind = 'partner' | 'merchant' | 'none';

export interface ListParams {
  limit?: number | undefined;
  startingAfter?: string | undefined;
  [filter: string]: string | number | undefined;
}

/**
 * The service's API as functions: the CLI's only way to the service, the same against the local
 * emulator and a remote deployment. Each call names the kind of key it needs, and sends exactly the
 * target's key of that kind: never another.
 */
export class ServiceClient {
  constructor(readonly target: ClientTarget) {}

  // biome-ignore lint/suspicious/noExplicitAny: untyped until the contract module types every operation (issue 12).
  call<T = any>(kind: KeyKind, req: Omit<HttpRequest, 'key'>): Promise<HttpResponse<T>> {
    let key: string | undefined;
    try {
      key = this.keyFor(kind, req);
    } catch (error) {
      return Promise.reject(error);
    }
    this.target.onSend?.({ method: req.method, path: req.path, kind, key });
    return send<T>(this.target.baseUrl, { ...req, key });
  }

  /** The key a call of `kind` sends; throws (the target's `missingKey`) when there is none. */
  keyFor(kind: KeyKind, request: { method: string; path: string } = { method: '', path: '' }): string | undefined {
    if (kind === 'none') return undefined;
    const key = kind === 'partner' ? this.target.partnerKey : this.target.merchantKey;
    if (!key) {
      if (this.target.missingKey) throw this.target.missingKey(kind, request);
      const env = kind === 'partner' ? 'SVC_PARTNER_KEY' : 'SVC_MERCHANT_KEY';
      throw new UserError(
        `no ${kind} key for ${this.target.baseUrl}`,
        'missing_key',
        `Pass --api-key ${kind === 'partner' ? 'pt_test_…' : 'test_…'}, set ${env}, choose a --profile, or run \`svc dev\` in this folder.`,
      );
    }
    return key;
  }

  // Merchants
  createMerchant(body: unknown, idempotencyKey: string) {
    return this.call<S<'createMerchant'>>('partner', { method: 'POST', path: '/v1/partner/merchants', body, idempotencyKey });
  }
  getMerchant(id: string) {
    return this.call<S<'getMerchant'>>('partner', { method: 'GET', path: `/v1/partner/merchants/${enc(id)}` });
  }
  listMerchants(params: ListParams) {
    return this.call<S<'listMerchants'>>('partner', { method: 'GET', path: `/v1/partner/merchants${query(params)}` });
  }

  // Invoices: the partner variant names a merchant, the merchant variant is the key's own.
  createInvoice(kind: 'partner' | 'merchant', body: unknown, idempotencyKey: string) {
    return this.call<S<'createInvoice'> | S<'createPartnerInvoice'>>(kind, {
      method: 'POST',
      path: kind === 'partner' ? '/v1/partner/invoices' : '/v1/invoices',
      body,
      idempotencyKey,
    });
  }
  getInvoice(kind: 'partner' | 'merchant', id: string) {
    return this.call<S<'getInvoice'> | S<'getPartnerInvoice'>>(kind, {
      method: 'GET',
      path: `${kind === 'partner' ? '/v1/partner/invoices' : '/v1/invoices'}/${enc(id)}`,
    });
  }
  listInvoices(kind: 'partner' | 'merchant', params: ListParams) {
    return this.call<S<'listInvoices'> | S<'listPartnerInvoices'>>(kind, {
      method: 'GET',
      path: `${kind === 'partner' ? '/v1/partner/invoices' : '/v1/invoices'}${query(params)}`,
    });
  }

  // Test helpers
  pay(kind: 'partner' | 'merchant', invoiceId: string, body: unknown) {
    return this.call<S<'createTestPayment'>>(kind, { method: 'POST', path: `/v1/test_helpers/invoices/${enc(invoiceId)}/payments`, body });
  }
  confirm(kind: 'partner' | 'merchant', invoiceId: string, paymentId: string) {
    return this.call<S<'confirmTestPayment'>>(kind, { method: 'POST', path: `/v1/test_helpers/invoices/${enc(invoiceId)}/payments/${enc(paymentId)}/confirm` });
  }
  expire(kind: 'partner' | 'merchant', invoiceId: string) {
    return this.call<S<'expireTestInvoice'>>(kind, { method: 'POST', path: `/v1/test_helpers/invoices/${enc(invoiceId)}/expire` });
  }

  // Webhook
  getWebhook() {
    return this.call<S<'getWebhook'>>('partner', { method: 'GET', path: '/v1/partner/webhook' });
  }
  putWebhook(body: unknown) {
    return this.call<S<'putWebhook'>>('partner', { method: 'PUT', path: '/v1/partner/webhook', body });
  }
  listDeliveries(params: ListParams) {
    return this.call<S<'listDeliveries'>>('partner', { method: 'GET', path: `/v1/partner/webhook/deliveries${query(params)}` });
  }
  getDelivery(id: string) {
    return this.call<S<'getDelivery'>>('partner', { method: 'GET', path: `/v1/partner/webhook/deliveries/${enc(id)}` });
  }
  resend(id: string) {
    return this.call<S<'resendDelivery'>>('partner', { method: 'POST', path: `/v1/partner/webhook/deliveries/${enc(id)}/resend` });
  }

  // The emulator's control plane (local only).
  invoiceEvents(id: string) {
    return this.call<S<'listInvoiceEvents'>>('none', { method: 'GET', path: `/__emulator/invoices/${enc(id)}/events` });
  }
  invoicePayments(id: string) {
    return this.call<S<'listInvoicePayments'>>('none', { method: 'GET', path: `/__emulator/invoices/${enc(id)}/payments` });
  }
  health() {
    return this.call<S<'getHealth'>>('none', { method: 'GET', path: '/__emulator/health', timeoutMs: 3000 });
  }
  defaultKeys() {
    return this.call<S<'getDefaultKeys'>>('none', { method: 'GET', path: '/__emulator/keys' });
  }
  reset() {
    return this.call<S<'resetEmulator'>>('none', { method: 'POST', path: '/__emulator/reset' });
  }
  clock() {
    return this.call<S<'getClock'>>('none', { method: 'GET', path: '/__emulator/clock' });
  }
  advanceClock(seconds: number) {
    return this.call<S<'advanceClock'>>('none', { method: 'POST', path: '/__emulator/clock/advance', body: { seconds }, timeoutMs: 600_000 });
  }
  saveSnapshot(name: string) {
    return this.call<ResponseBody<'Snapshot'>>('none', { method: 'POST', path: '/__emulator/snapshots', body: { name } });
  }
  listSnapshots() {
    return this.call<ResponseBody<'SnapshotList'>>('none', { method: 'GET', path: '/__emulator/snapshots' });
  }
  restoreSnapshot(name: string) {
    return this.call<ResponseBody<'SnapshotRestored'>>('none', { method: 'POST', path: `/__emulator/snapshots/${enc(name)}/restore`, timeoutMs: 120_000 });
  }
  putWebhookChaos(spec: ChaosSpec) {
    return this.call<ResponseBody<'WebhookChaos'>>('partner', { method: 'PUT', path: '/__emulator/webhook-chaos', body: spec });
  }
  getWebhookChaos() {
    return this.call<ResponseBody<'WebhookChaos'>>('partner', { method: 'GET', path: '/__emulator/webhook-chaos' });
  }
  deleteWebhookChaos() {
    return this.call<undefined>('partner', { method: 'DELETE', path: '/__emulator/webhook-chaos' });
  }
  addFault(spec: FaultSpec) {
    return this.call<ResponseBody<'Fault'>>('none', { method: 'POST', path: '/__emulator/faults', body: spec });
  }
  listFaults() {
    return this.call<ResponseBody<'FaultList'>>('none', { method: 'GET', path: '/__emulator/faults' });
  }
  clearFaults() {
    return this.call<ResponseBody<'FaultsCleared'>>('none', { method: 'DELETE', path: '/__emulator/faults' });
  }
  deleteFault(id: string) {
    return this.call<undefined>('none', { method: 'DELETE', path: `/__emulator/faults/${enc(id)}` });
  }
  exportSnapshot(name: string) {
    return this.call<Buffer>('none', { method: 'GET', path: `/__emulator/snapshots/${enc(name)}/file`, binary: true, timeoutMs: 120_000 });
  }
  deleteSnapshot(name: string) {
    return this.call<undefined>('none', { method: 'DELETE', path: `/__emulator/snapshots/${enc(name)}` });
  }
  newMerchantKey(merchantId: string) {
    return this.call<S<'createMerchantKey'>>('none', { method: 'POST', path: `/__emulator/merchants/${enc(merchantId)}/keys` });
  }
  // svc webhook listen's side of the listener protocol (partner key, control plane).
  registerListener(body: { forwardTo: string; events: string[] | null; timeoutSeconds?: number }) {
    return this.call<S<'registerListener'>>('partner', { method: 'PUT', path: '/__emulator/listener', body });
  }
  listListeners() {
    return this.call<S<'listListeners'>>('partner', { method: 'GET', path: '/__emulator/listeners' });
  }
  unregisterListener() {
    return this.call('partner', { method: 'DELETE', path: '/__emulator/listener' });
  }
  listenerSecret() {
    return this.call<{ secret: string }>('partner', { method: 'GET', path: '/__emulator/listener/secret' });
  }
  reportListenerResult(body: { requestId: string; status: number | null; body: string | null; error: string | null; durationMs: number }) {
    return this.call<S<'reportListenerResult'>>('partner', { method: 'POST', path: '/__emulator/listener/results', body });
  }

  openapi() {
    return this.call('none', { method: 'GET', path: '/openapi.json' });
  }
}

const enc = encodeURIComponent;
/** The success body of an operation: what each call's `data` is. */
type S<Id extends OperationId> = SuccessOf<Id>;

function query(params: ListParams): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '') as [string, string | number][];
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
}
