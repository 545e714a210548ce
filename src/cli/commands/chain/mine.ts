import { UsageError, UserError } from '../../../errors.js';
import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import { chainsView, type LocalChainData, NO_CHAINS } from '../../views/chain.js';
import type { mineChainSpec } from './index.js';

/**
 * `svc chain mine [blocks] [--network id]`: mines on one local chain or on each; the emulator credits
 * and confirms what the blocks make due before it answers (CONTRACT §14).
 */
export const mineChainCommand: Handler<typeof mineChainSpec> = async ({ args, options }, ctx) => {
  const blocks = args.blocks === undefined ? 1 : Number(args.blocks);
  if (!/^[1-9][0-9]{0,4}$/.test(args.blocks ?? '1') || blocks > 10_000) {
    throw new UsageError(`<blocks> must be a whole number from 1 to 10000, not "${args.blocks}"`, '<blocks>');
  }
  const { client, target } = await connect(ctx);
  const networks =
    options.network === undefined
      ? (await controlPlane(ctx, target, 'Listing the local chains', client.listChains())).data.data.map((c) => c.networkId)
      : [options.network];
  if (networks.length === 0) throw new UserError(NO_CHAINS, 'no_local_chains');
  const mined: LocalChainData[] = [];
  for (const networkId of networks) {
    const res = await controlPlane(
      ctx,
      target,
      `Mining ${blocks} block${blocks === 1 ? '' : 's'} on ${networkId}`,
      client.mineChain({ params: { networkId: String(networkId) }, body: { blocks } }),
    );
    mined.push(res.data);
  }
  return { data: options.network === undefined ? { data: mined } : mined[0], human: (c) => chainsView(c, mined) };
};
