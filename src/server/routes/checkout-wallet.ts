import { ApiError } from '../api-error.js';
import type { RouteDef, RouteInput } from '../route.js';
import { schemas } from '../validation/schemas.js';
import type { CheckoutTestBody } from './checkout-test-body.js';

/**
 * The checkout page's "Pay from a test wallet" (CONTRACT §14): a real transfer from funded account 0
 * on the selected network's local chain, confirmed. A page write, refused from another origin
 * (CONTRACT §8) like the test panel's; the router prefers this literal path to the panel's `:action`.
 */
export const checkoutWalletRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/checkout/:invoiceId/test/wallet',
    auth: 'none',
    sameOriginWrites: true,
    validated: true,
    get body() {
      return schemas().checkoutTestBody;
    },
    handle: async (input: RouteInput<CheckoutTestBody>, deps) => {
      const chains = deps.runtime.chains;
      if (!chains) throw new ApiError(404, 'chain_not_found', 'No local chains run here: start the emulator with svc dev --chains.');
      // Loaded here: it brings viem, which nothing loads without local chains (bench #12, #13).
      const { payFromWallet } = await import('../chains/pay.js');
      const payment = await payFromWallet(deps, chains, input.params.invoiceId!, { networkId: input.body.networkId, token: input.body.token });
      return { status: 200, body: payment };
    },
  },
];
