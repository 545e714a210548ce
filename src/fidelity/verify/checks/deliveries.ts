import { randomUUID } from 'node:crypto';
import { at, str } from '../../json.js';
import type { Answer } from '../api.js';
import { envelopeOf, idOf, type VerifyContext } from '../context.js';
import { expectEqual, expectError, expectShape, expectStatus, expectThat, summary } from '../expect.js';
import type { Delivered } from '../receiver.js';
import { defineChecks } from '../types.js';
import { SIGNATURE_FORMAT } from '../../contract/signature-rules.js';

/** The deliveries of an invoice as the API lists them, once each has an outcome recorded (`done`). */
export async function deliveryRecords(
  ctx: VerifyContext,
  invoiceId: string,
  done: (records: unknown[]) => boolean,
): Promise<{ answer: Answer; records: unknown[] }> {
  const read = async () => {
    const answer = await ctx.call('listDeliveries', { key: ctx.partnerKey, query: { invoiceId } });
    const data = at(answer.json, 'data');
    return { answer, records: Array.isArray(data) ? data : [] };
  };
  return ctx.poll(read, ({ answer, records }) => answer.status !== 200 || done(records));
}

/** A new invoice and its first delivery (invoice.created), as the receiver got it. */
async function createdDelivery(ctx: VerifyContext): Promise<{ invoice: Answer; delivered: Delivered }> {
  await ctx.receiver();
  const invoice = await ctx.partnerInvoice();
  const [delivered] = await ctx.deliveriesOf(idOf(invoice), 1);
  return { invoice, delivered: delivered! };
}

const settled = (r: unknown) => str(r, 'status') === 'succeeded' || str(r, 'status') === 'failed';

/** CONTRACT §4–§5: what is delivered, how, and what the delivery records say. */
export const deliveryChecks = defineChecks([
  {
    id: 'deliveries.invoice-created',
    section: '§4',
    title: 'a new invoice delivers invoice.created: id <invoiceId>-1, sequence 1, status CREATED, token null, the partner’s fields',
    async run(ctx) {
      const { merchantId, externalTenantId } = await ctx.merchant();
      const { invoice, delivered } = await createdDelivery(ctx);
      const shape = ctx.contract.checkSchema('WebhookEvent', delivered.envelope);
      expectThat(shape.length === 0, 'an envelope the document describes (WebhookEvent)', shape.map((p) => `${p.at || '/'} ${p.message}`).join('; '));
      const e = envelopeOf(delivered);
      const id = idOf(invoice);
      expectEqual(
        [e.type, e.id, e.data.sequence, e.data.status, e.data.token, str(delivered.envelope, 'environment')],
        ['invoice.created', `${id}-1`, 1, 'CREATED', null, 'test'],
        'type, id, sequence, status, token, environment',
      );
      expectEqual(
        [e.data.invoiceId, e.data.merchantId, e.data.externalTenantId, e.data.amount],
        [id, merchantId, externalTenantId, '10.00'],
        'invoiceId, merchantId, externalTenantId, amount',
      );
      expectThat(typeof str(delivered.envelope, 'partnerId') === 'string', 'partnerId on the envelope', 'none');
      return undefined;
    },
  },
  {
    id: 'deliveries.headers',
    section: '§5',
    title: 'a delivery is a POST with Content-Type application/json, X-Service-Signature t=…,v1=…, and the custom headers',
    async run(ctx) {
      const setup = await ctx.receiver();
      const { delivered } = await createdDelivery(ctx);
      expectEqual(delivered.headers['content-type']?.split(';')[0], 'application/json', 'Content-Type');
      const signature = delivered.headers['x-service-signature'] ?? '';
      expectThat(SIGNATURE_FORMAT.test(signature), 'X-Service-Signature t=<unix>,v1=<64 hex>', JSON.stringify(signature.slice(0, 100)));
      for (const [name, value] of Object.entries(setup.customHeaders ?? {})) expectEqual(delivered.headers[name.toLowerCase()], value, `custom header ${name}`);
      return undefined;
    },
  },
  {
    id: 'deliveries.record',
    section: '§5',
    title: 'the delivery list shows it: eventId, eventType, invoiceId, the URL, succeeded after one attempt answered 200',
    async run(ctx) {
      const setup = await ctx.receiver();
      const { invoice } = await createdDelivery(ctx);
      const id = idOf(invoice);
      const { answer, records } = await deliveryRecords(ctx, id, (list) => list.some(settled));
      expectStatus(answer, 200);
      expectShape(ctx.contract, answer);
      const record = records.find((r) => str(r, 'eventId') === `${id}-1`);
      expectThat(record !== undefined, `a delivery of ${id}-1`, JSON.stringify(records).slice(0, 200));
      expectEqual(
        [
          str(record, 'eventType'),
          str(record, 'invoiceId'),
          str(record, 'url'),
          str(record, 'status'),
          at(record, 'attemptCount'),
          at(record, 'lastResponseStatus'),
        ],
        ['invoice.created', id, setup.url, 'succeeded', 1, 200],
        'eventType, invoiceId, url, status, attemptCount, lastResponseStatus',
      );
      return undefined;
    },
  },
  {
    id: 'deliveries.payload',
    section: '§5',
    title: 'the single delivery view’s payload is the body received, byte for byte, with its attempts',
    async run(ctx) {
      const { invoice, delivered } = await createdDelivery(ctx);
      const { records } = await deliveryRecords(ctx, idOf(invoice), (list) => list.some(settled));
      const deliveryId = str(
        records.find((r) => str(r, 'eventId') === `${idOf(invoice)}-1`),
        'id',
      );
      expectThat(deliveryId !== undefined, 'a delivery record for it', JSON.stringify(records).slice(0, 200));
      const a = await ctx.call('getDelivery', { key: ctx.partnerKey, params: { id: deliveryId } });
      expectStatus(a, 200);
      expectShape(ctx.contract, a);
      expectThat(
        str(a.json, 'payload') === delivered.rawBody,
        'payload equal to the body received',
        `${str(a.json, 'payload')?.slice(0, 100)}… (received ${delivered.rawBody.slice(0, 100)}…)`,
      );
      expectEqual(str(a.json, 'attempts', 0, 'trigger'), 'scheduled', 'the first attempt’s trigger');
      return undefined;
    },
  },
  {
    id: 'deliveries.resend',
    section: '§5',
    title: 'resend is 200 with the record, and delivers the same envelope again as a manual attempt',
    async run(ctx) {
      const { invoice, delivered } = await createdDelivery(ctx);
      const { records } = await deliveryRecords(ctx, idOf(invoice), (list) => list.some(settled));
      const deliveryId =
        str(
          records.find((r) => str(r, 'eventId') === `${idOf(invoice)}-1`),
          'id',
        ) ?? '';
      const a = await ctx.call('resendDelivery', { key: ctx.partnerKey, params: { id: deliveryId } });
      expectStatus(a, 200);
      expectShape(ctx.contract, a);
      const attempts = at(a.json, 'attempts');
      expectThat(
        Array.isArray(attempts) && attempts.some((t) => str(t, 'trigger') === 'manual'),
        'a manual attempt in the record',
        JSON.stringify(attempts).slice(0, 200),
      );
      const both = await ctx.deliveriesOf(idOf(invoice), 2);
      expectEqual(envelopeOf(both[1]!).id, envelopeOf(delivered).id, 'the same envelope id');
      expectThat(both[1]!.rawBody === delivered.rawBody, 'the same envelope, byte for byte', both[1]!.rawBody.slice(0, 100));
      return undefined;
    },
  },
  {
    id: 'deliveries.filters',
    section: '§5',
    title: 'the delivery list filters by invoiceId, eventType and status',
    async run(ctx) {
      const { invoice } = await createdDelivery(ctx);
      const id = idOf(invoice);
      await deliveryRecords(ctx, id, (list) => list.some(settled));
      const a = await ctx.call('listDeliveries', { key: ctx.partnerKey, query: { invoiceId: id, eventType: 'invoice.created', status: 'succeeded' } });
      expectStatus(a, 200);
      const data = at(a.json, 'data');
      expectThat(Array.isArray(data) && data.length > 0, 'the invoice’s succeeded invoice.created delivery', summary(a));
      for (const r of data)
        expectEqual(
          [str(r, 'invoiceId'), str(r, 'eventType'), str(r, 'status')],
          [id, 'invoice.created', 'succeeded'],
          'each listed delivery’s invoiceId, eventType, status',
        );
      const none = await ctx.call('listDeliveries', { key: ctx.partnerKey, query: { invoiceId: id, status: 'failed' } });
      expectEqual(at(none.json, 'data'), [], 'no failed deliveries of it');
      return undefined;
    },
  },
  {
    id: 'deliveries.not-found',
    section: '§2',
    title: 'a delivery that does not exist is 404 delivery_not_found',
    async run(ctx) {
      expectError(ctx.contract, await ctx.call('getDelivery', { key: ctx.partnerKey, params: { id: randomUUID() } }), 404, 'delivery_not_found');
      return undefined;
    },
  },
  {
    id: 'deliveries.disabled',
    section: '§5',
    title: 'a disabled webhook gets no deliveries, and resend is 409 webhook_disabled',
    async run(ctx) {
      const { invoice: before } = await createdDelivery(ctx);
      const { records } = await deliveryRecords(ctx, idOf(before), (list) => list.some(settled));
      const deliveryId = str(records[0], 'id') ?? '';
      const setup = await ctx.receiver();
      const put = await ctx.call('putWebhook', { key: ctx.partnerKey, body: { url: setup.url, enabled: false } });
      ctx.hook.changed();
      expectStatus(put, 200, 'for disabling the webhook');
      const invoice = await ctx.partnerInvoice();
      // Events are still recorded; a deployment that delivers does so within moments.
      await new Promise((r) => setTimeout(r, 1500));
      const list = await ctx.call('listDeliveries', { key: ctx.partnerKey, query: { invoiceId: idOf(invoice) } });
      expectEqual(at(list.json, 'data'), [], 'no deliveries for an invoice made while disabled:');
      expectError(ctx.contract, await ctx.call('resendDelivery', { key: ctx.partnerKey, params: { id: deliveryId } }), 409, 'webhook_disabled');
      return undefined;
    },
  },
]);
