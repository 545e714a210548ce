import { envelopeOf, idOf } from '../context.js';
import { expectThat } from '../expect.js';
import type { Delivered } from '../receiver.js';
import { defineChecks } from '../types.js';
import type { VerifyContext } from '../context.js';
import { signatureProblem, signatureTime } from '../../contract/signature-rules.js';

/** Every delivery the receiver has had in this run, one made now if there was none yet. */
async function delivered(ctx: VerifyContext): Promise<Delivered[]> {
  const { receiver } = await ctx.receiver();
  if (receiver.deliveries.length === 0) await ctx.deliveriesOf(idOf(await ctx.partnerInvoice()), 1);
  return receiver.deliveries;
}

/** CONTRACT §5, interface §6.3: every delivery signed, with a fresh wall-clock timestamp. */
export const signatureChecks = defineChecks([
  {
    id: 'signatures.hmac',
    section: '§5',
    title: 'every delivery carries v1 = HMAC-SHA256 of "<t>.<raw body>" under the webhook secret',
    async run(ctx) {
      const { secret } = await ctx.receiver();
      const all = await delivered(ctx);
      for (const d of all) {
        const problem = signatureProblem(d.rawBody, d.headers['x-service-signature'], secret);
        expectThat(problem === null, `a valid signature on each of ${all.length} deliveries`, `${envelopeOf(d).id || 'a delivery'}: ${problem}`);
      }
      return `${all.length} deliveries`;
    },
  },
  {
    id: 'signatures.timestamp',
    section: '§5',
    title: 'the signature’s t is wall-clock time: within 5 minutes of its arrival',
    async run(ctx) {
      const all = await delivered(ctx);
      for (const d of all) {
        const t = signatureTime(d.headers['x-service-signature']);
        const skew = t === null ? Number.POSITIVE_INFINITY : Math.abs(d.receivedAt / 1000 - t);
        expectThat(
          skew <= 300,
          `t within 300 s of arrival on each of ${all.length} deliveries`,
          `${envelopeOf(d).id || 'a delivery'}: ${t === null ? 'no t' : `${Math.round(skew)} s off`}`,
        );
      }
      return `${all.length} deliveries`;
    },
  },
]);
