import { describe, expect, it } from 'vitest';
import { DEFAULT_RECONNECT, limitText, Reconnector, reconnectPolicy } from '../../src/client/reconnect.js';
import { UsageError } from '../../src/errors.js';

/** A Reconnector on a hand-moved clock, waiting exactly what it asks each time. */
function walk(policy = DEFAULT_RECONNECT) {
  let now = 1_000_000;
  const r = new Reconnector(policy, () => now);
  return {
    r,
    /** Fails once, then waits the delay it was given; returns that delay, or 'give up'. */
    fail(): number | 'give up' {
      const next = r.failed();
      if (next.giveUp) return 'give up';
      now += next.delayMs;
      return next.delayMs;
    },
    advance: (ms: number) => (now += ms),
  };
}

describe('the reconnect policy shared by listen and tail', () => {
  it('backs off from 250 ms, doubling, capped at 5 s', () => {
    const w = walk();
    expect(Array.from({ length: 8 }, () => w.fail())).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('gives up after 5 minutes without a connection, on time (the last wait is cut short)', () => {
    const w = walk();
    const waits: number[] = [];
    for (;;) {
      const d = w.fail();
      if (d === 'give up') break;
      waits.push(d);
    }
    expect(waits.reduce((a, b) => a + b, 0)).toBe(5 * 60_000);
    expect(waits.at(-1)).toBeLessThanOrEqual(5000);
    expect(waits.length).toBeGreaterThan(55);
  });

  it('a connection ends the outage: reports it, and the next failure starts from 250 ms with a fresh limit', () => {
    const w = walk({ initialMs: 250, maxMs: 5000, giveUpAfterMs: 10_000 });
    w.fail();
    w.fail();
    expect(w.r.isDown).toBe(true);
    expect(w.r.connected()).toEqual({ downMs: 750, attempts: 2 });
    expect(w.r.connected()).toBeNull();
    w.advance(60_000);
    expect(w.fail()).toBe(250);
  });

  it('null never gives up', () => {
    const w = walk({ ...DEFAULT_RECONNECT, giveUpAfterMs: null });
    for (let i = 0; i < 1000; i++) expect(w.fail()).not.toBe('give up');
  });

  it('SVC_RECONNECT_TIMEOUT sets the limit in seconds (0: never); listen’s older name still works; nonsense is a usage error', () => {
    expect(reconnectPolicy({})).toEqual(DEFAULT_RECONNECT);
    expect(reconnectPolicy({ SVC_RECONNECT_TIMEOUT: '30' }).giveUpAfterMs).toBe(30_000);
    expect(reconnectPolicy({ SVC_RECONNECT_TIMEOUT: '0' }).giveUpAfterMs).toBeNull();
    expect(reconnectPolicy({ SVC_LISTEN_RECONNECT_TIMEOUT: '2' }).giveUpAfterMs).toBe(2000);
    expect(reconnectPolicy({ SVC_RECONNECT_TIMEOUT: '7', SVC_LISTEN_RECONNECT_TIMEOUT: '2' }).giveUpAfterMs).toBe(7000);
    expect(() => reconnectPolicy({ SVC_RECONNECT_TIMEOUT: 'soon' })).toThrow(UsageError);
    expect(() => reconnectPolicy({ SVC_RECONNECT_TIMEOUT: '-1' })).toThrow(/SVC_RECONNECT_TIMEOUT must be a number of seconds/);
  });

  it('says the limit as people read it', () => {
    expect(limitText(DEFAULT_RECONNECT)).toBe('5 minutes');
    expect(limitText({ ...DEFAULT_RECONNECT, giveUpAfterMs: 2000 })).toBe('2 s');
  });
});
