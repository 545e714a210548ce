import { EXIT } from '../../../output/render.js';
import { call, connect } from '../../../service.js';
import type { Handler } from '../../../spec.js';
import type { resendDeliverySpec } from '../index.js';
import { resendView } from '../../../views/delivery.js';

/**
 * `svc webhook deliveries resend <id>`: one immediate manual attempt (CONTRACT §5), then its result.
 *
 * Exit code: 0 when the receiver accepted the attempt (2xx), 1 when it did not. The command did
 * its job either way, but what a script asks by resending is "does my receiver take it now?", and
 * `svc webhook deliveries resend $ID || …` should be able to act on the answer. stdout still holds
 * the updated delivery (with --json, the API's record, not an error document: its last attempt says
 * why); the refusals of the API itself (404 delivery_not_found, 409 webhook_disabled) print the
 * error document as every command does, also with exit 1.
 */
export const resendDeliveryCommand: Handler<typeof resendDeliverySpec> = async ({ args }, ctx) => {
  const { client } = await connect(ctx);
  const res = await call(ctx, 'Resending', client.resendDelivery({ params: { id: args.id } }));
  const delivery = res.data;
  const last = delivery.attempts.at(-1);
  const accepted = last !== undefined && last.responseStatus !== null && last.responseStatus >= 200 && last.responseStatus < 300;
  return {
    data: res.data,
    human: (c) => resendView(c, delivery),
    ...(accepted ? {} : { exitCode: EXIT.refused, notes: [`the receiver did not accept the attempt${last?.error ? `: ${last.error}` : ''}`] }),
  };
};
