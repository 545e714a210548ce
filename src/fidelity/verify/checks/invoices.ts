import { randomUUID } from 'node:crypto';
import { isUuid } from '../../../domain/ids.js';
import { at, isRecord, str } from '../../json.js';
import { idOf } from '../context.js';
import { expectEqual, expectError, expectShape, expectStatus, expectThat } from '../expect.js';
import { defineChecks } from '../types.js';
import { addressProblem } from './address-format.js';
import { requireRoute } from './merchants.js';

/** Interface §4.2–4.3, CONTRACT §3: invoices, their reads and their addresses. */
export const invoiceChecks = defineChecks([
  {
    id: 'invoices.create-partner',
    section: '§3',
    title: 'a partner invoice is 201 with the PartnerInvoice the document describes, CREATED, for the merchant',
    async run(ctx) {
      const { merchantId } = await ctx.merchant();
      const referenceId = ctx.marker();
      const a = await ctx.call('createPartnerInvoice', {
        key: ctx.partnerKey,
        idempotencyKey: ctx.marker(),
        body: { merchantId, amount: '10.00', referenceId },
      });
      expectStatus(a, 201);
      expectShape(ctx.contract, a);
      expectEqual(
        [str(a.json, 'status'), str(a.json, 'merchantId'), str(a.json, 'referenceId')],
        ['CREATED', merchantId, referenceId],
        'status, merchantId, referenceId',
      );
      return undefined;
    },
  },
  {
    id: 'invoices.create-merchant',
    section: '§3',
    title: 'a merchant invoice is 201 with the Invoice the document describes (no merchantId), CREATED',
    async run(ctx) {
      const key = ctx.requireMerchantKey();
      const a = await ctx.call('createInvoice', { key, idempotencyKey: ctx.marker(), body: { amount: '10.00', referenceId: ctx.marker() } });
      expectStatus(a, 201);
      expectShape(ctx.contract, a);
      expectEqual(str(a.json, 'status'), 'CREATED', 'status');
      expectThat(!isRecord(a.json) || !('merchantId' in a.json), 'no merchantId in the merchant variant', 'a merchantId');
      return undefined;
    },
  },
  {
    id: 'invoices.checkout-url',
    section: '§3',
    title: 'an invoice carries checkoutUrl, an absolute http(s) URL',
    async run(ctx) {
      const a = await ctx.partnerInvoice();
      const url = str(a.json, 'checkoutUrl');
      expectThat(url !== undefined && /^https?:\/\/[^/]/.test(url) && URL.canParse(url), 'an absolute http(s) checkoutUrl', JSON.stringify(url ?? null));
      return undefined;
    },
  },
  {
    id: 'invoices.expires-at',
    section: '§3',
    title: 'expiresAt lies ahead of the creation (creation + the invoice lifetime)',
    async run(ctx) {
      const before = Date.now();
      const a = await ctx.partnerInvoice();
      const expiresAt = Date.parse(str(a.json, 'expiresAt') ?? '');
      // The deployment's clock may differ from ours by a little; a lifetime is minutes.
      expectThat(Number.isFinite(expiresAt) && expiresAt > before, 'an expiresAt after the creation', JSON.stringify(str(a.json, 'expiresAt') ?? null));
      return undefined;
    },
  },
  {
    id: 'invoices.addresses',
    section: '§3',
    title: 'addresses: one per chain, each with a chainId (UUID), tokens, and a deposit address in its family’s format',
    async run(ctx) {
      const a = await ctx.partnerInvoice();
      const addresses = at(a.json, 'addresses');
      expectThat(Array.isArray(addresses) && addresses.length > 0, 'at least one address', JSON.stringify(addresses ?? null).slice(0, 100));
      const networks = new Set<unknown>();
      for (const entry of addresses) {
        const family = str(entry, 'family') ?? '';
        const address = str(entry, 'depositAddress') ?? '';
        const problem = addressProblem(family, address);
        expectThat(problem === null, `a ${family} deposit address in its format`, `${address}: ${problem}`);
        expectThat(isUuid(str(entry, 'chainId') ?? ''), 'a UUID chainId', JSON.stringify(str(entry, 'chainId') ?? null));
        const tokens = at(entry, 'tokens');
        expectThat(Array.isArray(tokens) && tokens.length > 0, `tokens on network ${String(at(entry, 'networkId'))}`, 'none');
        networks.add(at(entry, 'networkId'));
      }
      expectEqual(networks.size, addresses.length, 'one address per network, distinct networks:');
      return undefined;
    },
  },
  {
    id: 'invoices.unknown-merchant',
    section: '§2',
    title: "a partner invoice for a merchant that is not the partner's is 404 merchant_not_found",
    async run(ctx) {
      const a = await ctx.call('createPartnerInvoice', {
        key: ctx.partnerKey,
        idempotencyKey: ctx.marker(),
        body: { merchantId: randomUUID(), amount: '10.00', referenceId: ctx.marker() },
      });
      expectError(ctx.contract, a, 404, 'merchant_not_found');
      return undefined;
    },
  },
  {
    id: 'invoices.get-partner',
    section: '§3',
    title: 'GET of a partner invoice answers it as created',
    async run(ctx) {
      const made = await ctx.partnerInvoice();
      const a = await ctx.call('getPartnerInvoice', { key: ctx.partnerKey, params: { id: idOf(made) } });
      requireRoute(a, 'GET of one partner invoice');
      expectStatus(a, 200);
      expectShape(ctx.contract, a);
      expectEqual(a.json, made.json, 'the invoice as created:');
      return undefined;
    },
  },
  {
    id: 'invoices.get-merchant',
    section: '§3',
    title: 'GET of a merchant invoice answers it as created',
    async run(ctx) {
      const made = await ctx.merchantInvoice();
      const a = await ctx.call('getInvoice', { key: ctx.requireMerchantKey(), params: { id: idOf(made) } });
      requireRoute(a, 'GET of one merchant invoice');
      expectStatus(a, 200);
      expectShape(ctx.contract, a);
      expectEqual(a.json, made.json, 'the invoice as created:');
      return undefined;
    },
  },
  {
    id: 'invoices.list',
    section: '§3',
    title: 'the invoice list is newest first, pages with limit and startingAfter, and says hasMore',
    async run(ctx) {
      const { merchantId } = await ctx.merchant();
      const first = await ctx.partnerInvoice();
      const second = await ctx.partnerInvoice();
      const page = await ctx.call('listPartnerInvoices', { key: ctx.partnerKey, query: { merchantId, limit: 1 } });
      requireRoute(page, 'partner invoice list');
      expectStatus(page, 200);
      expectShape(ctx.contract, page);
      expectEqual(str(page.json, 'data', 0, 'id'), idOf(second), 'the newest invoice first:');
      expectEqual(at(page.json, 'hasMore'), true, 'hasMore');
      const next = await ctx.call('listPartnerInvoices', { key: ctx.partnerKey, query: { merchantId, limit: 1, startingAfter: idOf(second) } });
      expectStatus(next, 200);
      expectEqual(str(next.json, 'data', 0, 'id'), idOf(first), 'after startingAfter, the one before:');
      return undefined;
    },
  },
  {
    id: 'invoices.list-merchant',
    section: '§3',
    title: "a merchant key's invoice list holds its own invoices, newest first, as a page {data, hasMore}",
    async run(ctx) {
      const key = ctx.requireMerchantKey();
      const made = await ctx.merchantInvoice();
      const a = await ctx.call('listInvoices', { key, query: { limit: 1 } });
      requireRoute(a, 'merchant invoice list');
      expectStatus(a, 200);
      expectShape(ctx.contract, a);
      expectEqual(str(a.json, 'data', 0, 'id'), idOf(made), 'the newest invoice first:');
      return undefined;
    },
  },
  {
    id: 'invoices.not-found',
    section: '§2',
    title: 'an invoice that does not exist is 404 invoice_not_found',
    async run(ctx) {
      const a = await ctx.call('getPartnerInvoice', { key: ctx.partnerKey, params: { id: randomUUID() } });
      requireRoute(a, 'GET of one partner invoice');
      expectError(ctx.contract, a, 404, 'invoice_not_found');
      return undefined;
    },
  },
  {
    id: 'invoices.reference-id-limit',
    section: '§3',
    title: 'a referenceId over 255 characters is 400 validation_failed naming it',
    async run(ctx) {
      const { merchantId } = await ctx.merchant();
      const referenceId = `${ctx.marker()}-`.padEnd(256, 'x');
      const a = await ctx.call('createPartnerInvoice', {
        key: ctx.partnerKey,
        idempotencyKey: ctx.marker(),
        body: { merchantId, amount: '10.00', referenceId },
      });
      expectError(ctx.contract, a, 400, 'validation_failed', 'referenceId');
      return undefined;
    },
  },
  {
    id: 'invoices.other-merchant',
    section: '§2',
    title: "another merchant's invoice is 404 invoice_not_found to a merchant key (never revealed)",
    async run(ctx) {
      const key = ctx.requireMerchantKey();
      const made = await ctx.partnerInvoice();
      const a = await ctx.call('getInvoice', { key, params: { id: idOf(made) } });
      requireRoute(a, 'GET of one merchant invoice');
      expectError(ctx.contract, a, 404, 'invoice_not_found');
      return undefined;
    },
  },
]);
