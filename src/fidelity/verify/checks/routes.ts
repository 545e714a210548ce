import { at, str } from '../../json.js';
import { idOf } from '../context.js';
import { expectEqual, expectError, expectThat } from '../expect.js';
import { defineChecks } from '../types.js';

/** Base Sepolia and its USDC: a route the test environment has (CONTRACT §3). */
const BASE_SEPOLIA = 84532;
/** Ethereum Sepolia: another test network, outside a lock on Base Sepolia. */
const SEPOLIA = 11155111;

/** CONTRACT §2–§3, interface §2.2: `networkId` and `token` lock the payment route. */
export const routeChecks = defineChecks([
  {
    id: 'routes.lock',
    section: '§3',
    title: 'networkId and token lock an invoice to one address with that token only',
    async run(ctx) {
      const a = await ctx.partnerInvoice({ networkId: BASE_SEPOLIA, token: 'USDC' });
      const addresses = at(a.json, 'addresses');
      const summary = JSON.stringify(addresses).slice(0, 160);
      expectThat(Array.isArray(addresses) && addresses.length === 1, 'one address', summary);
      expectEqual(at(addresses, 0, 'networkId'), BASE_SEPOLIA, 'its networkId');
      const tokens = at(addresses, 0, 'tokens');
      expectEqual(Array.isArray(tokens) ? tokens.map((t) => str(t, 'symbol')) : tokens, ['USDC'], 'its tokens');
      return undefined;
    },
  },
  {
    id: 'routes.network-lock',
    section: '§3',
    title: 'networkId alone locks an invoice to that network’s address',
    async run(ctx) {
      const a = await ctx.partnerInvoice({ networkId: SEPOLIA });
      const addresses = at(a.json, 'addresses');
      expectThat(Array.isArray(addresses) && addresses.length === 1, 'one address', JSON.stringify(addresses).slice(0, 160));
      expectEqual(at(addresses, 0, 'networkId'), SEPOLIA, 'its networkId');
      return undefined;
    },
  },
  {
    id: 'routes.network-not-available',
    section: '§2',
    title: 'a networkId the test environment does not have is 400 route_not_available',
    async run(ctx) {
      const { merchantId } = await ctx.merchant();
      // Ethereum mainnet: a live network.
      const body = { merchantId, amount: '10.00', referenceId: ctx.marker(), networkId: 1 };
      expectError(
        ctx.contract,
        await ctx.call('createPartnerInvoice', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body }),
        400,
        'route_not_available',
      );
      return undefined;
    },
  },
  {
    id: 'routes.token-not-available',
    section: '§2',
    title: 'a token the merchant does not have is 400 route_not_available',
    async run(ctx) {
      const { merchantId } = await ctx.merchant();
      const body = { merchantId, amount: '10.00', referenceId: ctx.marker(), token: 'SVCVERIFY' };
      expectError(
        ctx.contract,
        await ctx.call('createPartnerInvoice', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body }),
        400,
        'route_not_available',
      );
      return undefined;
    },
  },
  {
    id: 'routes.payment-outside-lock',
    section: '§6',
    title: 'a test payment on a network outside the invoice’s lock is 400 route_not_available',
    async run(ctx) {
      await ctx.requireTestHelpers();
      const a = await ctx.partnerInvoice({ networkId: BASE_SEPOLIA, token: 'USDC' });
      expectError(ctx.contract, await ctx.pay(idOf(a), { networkId: SEPOLIA, token: 'USDC' }), 400, 'route_not_available');
      return undefined;
    },
  },
]);
