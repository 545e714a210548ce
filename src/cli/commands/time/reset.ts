import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { resetTimeSpec } from './index.js';
import { clockView } from '../../views/clock.js';

/** `svc time reset`: the clock back to the real time, or to its start (POST /__emulator/clock/reset). */
export const resetTimeCommand: Handler<typeof resetTimeSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Putting the clock back', client.resetClock());
  return { data: res.data, human: (c) => clockView(c, res.data) };
};
