import { parseDuration } from '../../../domain/duration.js';
import { UsageError } from '../../../errors.js';
import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { advanceTimeSpec } from './index.js';
import { advanceView } from '../../views/clock.js';

/**
 * `svc time advance <duration>`: moves the emulator's clock forward; the emulator runs what falls
 * due (expiries, delivery retries) before it answers, so the report says what ran.
 */
export const advanceTimeCommand: Handler<typeof advanceTimeSpec> = async ({ args }, ctx) => {
  const text = args.duration;
  const ms = parseDuration(text);
  if (ms === null || ms <= 0) {
    throw new UsageError(`<duration> must be a positive duration such as 90s, 15m, 2h, 1d (or a number of seconds), not "${text}"`, '<duration>');
  }
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, `Advancing the clock by ${text}`, client.advanceClock({ body: { seconds: ms / 1000 }, timeoutMs: 600_000 }));
  return { data: res.data, human: (c) => advanceView(c, res.data) };
};
