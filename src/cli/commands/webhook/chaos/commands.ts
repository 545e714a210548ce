import type { ChaosSpec } from '../../../../contract/testing-types.js';
import { connect, controlPlane } from '../../../service.js';
import type { Handler } from '../../../spec.js';
import { chaosView } from '../../../views/chaos.js';
import type { clearChaosSpec, setChaosSpec, showChaosSpec } from '../index.js';
import { parseDelay, parseProbability } from './parse.js';

/** `svc webhook chaos set …`: PUT /__emulator/webhook-chaos (it replaces the chaos in force). */
export const setChaosCommand: Handler<typeof setChaosSpec> = async ({ options: o }, ctx) => {
  const spec: ChaosSpec = {};
  const duplicate = parseProbability('--duplicate', o.duplicate);
  const badSignature = parseProbability('--bad-signature', o.badSignature);
  const staleTimestamp = parseProbability('--stale-timestamp', o.staleTimestamp);
  const delayMs = parseDelay(o.delay);
  if (duplicate !== undefined) spec.duplicate = duplicate;
  if (o.reorder) spec.reorder = true;
  if (delayMs) spec.delayMs = delayMs;
  if (badSignature !== undefined) spec.badSignature = badSignature;
  if (staleTimestamp !== undefined) spec.staleTimestamp = staleTimestamp;
  if (o.seed !== undefined) spec.seed = o.seed;
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Setting webhook chaos', client.putWebhookChaos({ body: spec }));
  return { data: res.data, human: (c) => chaosView(c, res.data) };
};

/** `svc webhook chaos show`: GET /__emulator/webhook-chaos. */
export const showChaosCommand: Handler<typeof showChaosSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Reading webhook chaos', client.getWebhookChaos());
  return { data: res.data, human: (c) => chaosView(c, res.data) };
};

/** `svc webhook chaos clear`: DELETE /__emulator/webhook-chaos. */
export const clearChaosCommand: Handler<typeof clearChaosSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  await controlPlane(ctx, target, 'Ending webhook chaos', client.deleteWebhookChaos());
  const data: { active: false } = { active: false };
  return { data, human: (c) => c.green('webhook chaos ended') };
};
