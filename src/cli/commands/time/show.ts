import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { showTimeSpec } from './index.js';
import { clockView } from '../../views/clock.js';

/** `svc time show`: the emulator's clock (GET /__emulator/clock). */
export const showTimeCommand: Handler<typeof showTimeSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Reading the clock', client.getClock());
  return { data: res.data, human: (c) => clockView(c, res.data) };
};
