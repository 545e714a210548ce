import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import { chainsView } from '../../views/chain.js';
import type { listChainsSpec } from './index.js';

/** `svc chain list`: GET /__emulator/chains (CONTRACT §14). */
export const listChainsCommand: Handler<typeof listChainsSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Listing the local chains', client.listChains());
  return { data: res.data, human: (c) => chainsView(c, res.data.data) };
};
