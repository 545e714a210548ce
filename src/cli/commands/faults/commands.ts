import { UsageError } from '../../../errors.js';
import type { FaultAction, FaultSpec } from '../../../contract/testing-types.js';
import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import { faultLine, faultTable } from '../../views/fault.js';
import type { addFaultSpec, clearFaultsSpec, listFaultsSpec } from './index.js';

/** `svc faults add …`: POST /__emulator/faults; the emulator validates the rest (its error names the field). */
export const addFaultCommand: Handler<typeof addFaultSpec> = async ({ options: o }, ctx) => {
  const actions = [o.status !== undefined, o.delayMs !== undefined, o.drop === true].filter(Boolean).length;
  if (actions !== 1) throw new UsageError('give exactly one action: --status <status>, --delay-ms <ms> or --drop', '--status');
  if ((o.code !== undefined || o.retryAfter !== undefined) && o.status === undefined) {
    throw new UsageError('--code and --retry-after go with --status', o.code !== undefined ? '--code' : '--retry-after');
  }
  const action: FaultAction =
    o.status !== undefined
      ? { status: o.status, ...(o.code !== undefined ? { code: o.code } : {}), ...(o.retryAfter !== undefined ? { retryAfter: o.retryAfter } : {}) }
      : o.delayMs !== undefined
        ? { delayMs: o.delayMs }
        : { drop: true };
  const spec: FaultSpec = {
    match: {
      ...(o.path !== undefined ? { path: o.path } : {}),
      ...(o.method !== undefined ? { method: o.method } : {}),
      ...(o.environment !== undefined ? { environment: o.environment } : {}),
    },
    action,
    when: o.when,
    ...(o.times !== undefined ? { times: o.times } : {}),
  };
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Adding the fault', client.createFault({ body: spec }));
  return { data: res.data, human: (c) => `${c.green('added')} ${faultLine(c, res.data)}` };
};

/** `svc faults list`: GET /__emulator/faults. */
export const listFaultsCommand: Handler<typeof listFaultsSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Listing faults', client.listFaults());
  return { data: res.data, human: (c) => faultTable(c, res.data.data) };
};

/** `svc faults clear [id]`: DELETE /__emulator/faults[/{id}]. */
export const clearFaultsCommand: Handler<typeof clearFaultsSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  if (args.id !== undefined) {
    await controlPlane(ctx, target, 'Removing the fault', client.deleteFault({ params: { id: args.id } }));
    const data: { deleted: number } = { deleted: 1 };
    return { data, human: (c) => `${c.green('removed')} ${args.id}` };
  }
  const res = await controlPlane(ctx, target, 'Removing every fault', client.clearFaults());
  return { data: res.data, human: (c) => `${c.green('removed')} ${res.data.deleted} fault${res.data.deleted === 1 ? '' : 's'}` };
};
