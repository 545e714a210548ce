import { at, str } from '../../json.js';
import { envelopeOf, idOf } from '../context.js';
import { expectEqual, expectStatus, expectThat } from '../expect.js';
import { defineChecks } from '../types.js';
import { deliveryRecords } from './deliveries.js';

/** The first retry comes this long after a failed attempt (CONTRACT §5, the Standard Webhooks schedule). */
const FIRST_RETRY_MS = 5_000;

const attempted = (n: number) => (records: unknown[]) => records.some((r) => Number(at(r, 'attemptCount')) >= n);

/** CONTRACT §5: failures, the retry schedule, no redirects, manual resends. */
export const retryChecks = defineChecks([
  {
    id: 'retries.schedule',
    section: '§5',
    title: 'a failed attempt (500) is retried 5 s later with the same envelope; the delivery then succeeds',
    async run(ctx) {
      const { receiver } = await ctx.receiver();
      receiver.answerNextInvoice([500]);
      const invoice = await ctx.partnerInvoice();
      const id = idOf(invoice);
      const [first] = await ctx.deliveriesOf(id, 1);
      expectEqual(first!.answered, 500, 'the receiver’s answer to the first attempt (another invoice took the planned 500):');
      const { records } = await deliveryRecords(ctx, id, attempted(1));
      const record = records.find((r) => str(r, 'eventId') === `${id}-1`);
      expectEqual(
        [str(record, 'status'), at(record, 'attemptCount'), at(record, 'lastResponseStatus')],
        ['retrying', 1, 500],
        'status, attemptCount, lastResponseStatus after the failure',
      );
      const gap = Date.parse(str(record, 'nextAttemptAt') ?? '') - Date.parse(str(record, 'lastAttemptAt') ?? '');
      expectThat(Math.abs(gap - FIRST_RETRY_MS) <= 1000, `nextAttemptAt 5 s after lastAttemptAt`, `${gap / 1000} s`);
      // svc's control plane moves its clock instead of making us wait (the schedule runs on it).
      if (await ctx.hasControlPlane()) expectStatus(await ctx.call('advanceClock', { body: { seconds: FIRST_RETRY_MS / 1000 } }), 200, 'advancing the clock');
      const both = await ctx.deliveriesOf(id, 2);
      expectEqual(envelopeOf(both[1]!).id, envelopeOf(first!).id, 'the retry’s envelope id');
      expectThat(both[1]!.rawBody === first!.rawBody, 'the same envelope, byte for byte', both[1]!.rawBody.slice(0, 100));
      const after = await deliveryRecords(ctx, id, (list) => list.some((r) => str(r, 'status') === 'succeeded'));
      const done = after.records.find((r) => str(r, 'eventId') === `${id}-1`);
      expectEqual([str(done, 'status'), at(done, 'attemptCount')], ['succeeded', 2], 'status and attemptCount after the retry');
      return undefined;
    },
  },
  {
    id: 'retries.no-redirects',
    section: '§5',
    title: 'a 3xx answer is a failure and is not followed; a manual resend that succeeds ends the retries',
    async run(ctx) {
      const { receiver } = await ctx.receiver();
      receiver.answerNextInvoice([302]);
      const invoice = await ctx.partnerInvoice();
      const id = idOf(invoice);
      const [first] = await ctx.deliveriesOf(id, 1);
      expectEqual(first!.answered, 302, 'the receiver’s answer to the first attempt (another invoice took the planned 302):');
      const { records } = await deliveryRecords(ctx, id, attempted(1));
      const record = records.find((r) => str(r, 'eventId') === `${id}-1`);
      expectEqual([str(record, 'status'), at(record, 'lastResponseStatus')], ['retrying', 302], 'status and lastResponseStatus after a 302');
      expectThat(!receiver.deliveries.some((d) => d.path.endsWith('/redirected')), 'the redirect not followed', 'a request to the Location');
      const resent = await ctx.call('resendDelivery', { key: ctx.partnerKey, params: { id: str(record, 'id') ?? '' } });
      expectStatus(resent, 200, 'for the resend');
      expectEqual(
        [str(resent.json, 'status'), at(resent.json, 'nextAttemptAt')],
        ['succeeded', null],
        'status and nextAttemptAt after a manual attempt that succeeded',
      );
      return undefined;
    },
  },
]);
