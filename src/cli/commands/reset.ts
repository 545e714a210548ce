import { UsageError, UserError } from '../../errors.js';
import { keyValue } from '../output/human.js';
import { confirm } from '../prompt.js';
import { connect, controlPlane } from '../service.js';
import type { Handler } from '../spec.js';
import type { resetSpec } from './top.js';

/**
 * `svc reset`: POST /__emulator/reset on the targeted emulator. It deletes everything but the
 * default keys, so it asks first on a terminal; off a terminal (or with --json) nobody can answer,
 * and a script that resets by accident loses data silently, so --yes is required there (a usage
 * error naming it), as `firebase` and `wrangler` do for their destructive commands.
 */
export const resetCommand: Handler<typeof resetSpec> = async ({ options }, ctx) => {
  if (options.yes !== true && !ctx.interactive) {
    throw new UsageError('svc reset deletes all data of the emulator: pass --yes to confirm (there is no terminal to ask on)', '--yes');
  }
  const { client, target } = await connect(ctx);
  if (options.yes !== true && !(await confirm(ctx, `Delete all data of the emulator at ${target.baseUrl}? (the default keys are kept)`, false))) {
    throw new UserError('not reset: nothing was deleted', 'reset_cancelled');
  }
  const res = await controlPlane(ctx, target, 'Resetting the emulator', client.resetEmulator());
  return {
    data: res.data,
    human: (c) =>
      keyValue(c, [
        ['reset', target.baseUrl],
        ['kept', 'the default partner and merchant keys'],
      ]),
  };
};
