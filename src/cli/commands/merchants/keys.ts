import { keyValue } from '../../output/human.js';
import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { merchantKeysSpec } from './index.js';

/**
 * `svc merchants keys <merchantId>`: a new merchant key from the emulator's control plane. The
 * emulator keeps only its hash, so this is the one time it can be shown; the note says so (on
 * stderr, and even with --quiet, so that it is not missed).
 */
export const merchantKeysCommand: Handler<typeof merchantKeysSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Issuing merchant key', client.createMerchantKey({ params: { id: args.merchantId } }));
  const issued = res.data;
  return {
    data: issued,
    human: (c) =>
      keyValue(c, [
        ['merchant', issued.merchantId],
        ['environment', issued.environment],
        ['key', issued.merchantKey, c.bold],
      ]),
    alerts: ctx.json ? [] : ['This key is shown only now: the emulator stores its hash only. Keep it somewhere safe.'],
  };
};
