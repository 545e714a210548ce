import { describe, expect, it } from 'vitest';
import { humanDevLine } from '../../src/cli/output/dev-events.js';
import { esc, escJson } from '../../src/cli/output/escape.js';
import { keyValue, styled, table } from '../../src/cli/output/human.js';
import { humanListenLines } from '../../src/cli/output/listen-events.js';
import { styleFor } from '../../src/cli/output/style.js';
import { attemptLine, type AttemptLine } from '../../src/cli/views/delivery.js';

const c = styleFor(false);
/** Anything a terminal would act on rather than print (line breaks between lines are ours). */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('esc (CONTRACT §8: terminal output)', () => {
  it('makes C0, DEL, C1, line/paragraph separators and bidi controls visible', () => {
    expect(esc('\u001b[2Jx')).toBe('\\x1b[2Jx');
    expect(esc('a\rb\nc\td')).toBe('a\\rb\\nc\\td');
    expect(esc('\u0000\u007f\u009b')).toBe('\\x00\\x7f\\x9b');
    expect(esc('x\u2028y\u2029z')).toBe('x\\u2028y\\u2029z');
    expect(esc('abc\u202edcba\u2066\u2069')).toBe('abc\\u202edcba\\u2066\\u2069');
  });

  it('leaves printable text alone, including non-ASCII, and is idempotent', () => {
    for (const s of ['plain', 'Café ☕ 東京 — “quotes”', 'back\\slash', '']) expect(esc(s)).toBe(s);
    const once = esc('\u001b[31mred\u001b[0m');
    expect(esc(once)).toBe(once);
  });

  it('escJson keeps JSON text valid and equal, only safe to print', () => {
    const doc = { title: 'x\u009b2J\u2028y\u202e', n: 1, nested: ['\u007f'] };
    const text = escJson(JSON.stringify(doc, null, 2));
    expect(text).not.toMatch(UNSAFE);
    expect(JSON.parse(text)).toEqual(doc);
  });

  it('multiline keeps line breaks and tabs, nothing else', () => {
    expect(esc('a\nb\tc\rd\u001b', { multiline: true })).toBe('a\nb\tc\\rd\\x1b');
  });
});

describe('renderers escape what they did not write', () => {
  const hostile = 'evil\u001b[2J\u202e';

  it('keyValue and table escape values; styled values and colour functions are applied after', () => {
    const kv = keyValue(c, [
      ['name', hostile],
      ['status', hostile, (t) => `<${t}>`],
      ['ours', styled('as is')],
    ]);
    expect(kv).not.toMatch(UNSAFE);
    expect(kv).toContain('<evil\\x1b[2J\\u202e>');
    expect(kv).toContain('as is');
    const t = table(c, [{ header: 'a', value: (r: { a: string }) => r.a, colour: (x) => `$&${x}` }], [{ a: hostile }]);
    expect(t).not.toMatch(UNSAFE);
    expect(t).toContain('$&evil');
  });

  it('svc dev lines, listen lines and tail lines', () => {
    const dev = humanDevLine({ type: 'warning', message: `POST /v1/invoices: unknown fields ignored: ${hostile}` }, c)!;
    expect(dev).not.toMatch(UNSAFE);
    expect(dev).toContain('ignored: evil\\x1b[2J\\u202e');
    const listen = humanListenLines(
      {
        type: 'forward_failed',
        eventType: hostile,
        eventId: hostile,
        method: 'POST',
        url: 'http://localhost:1/',
        status: 500,
        durationMs: 1,
        reason: hostile,
        errorKind: 'http_status',
      },
      c,
    );
    expect(listen.map((l) => l.text).join('\n')).not.toMatch(UNSAFE);
    const line: AttemptLine = {
      deliveryId: 'd',
      eventId: hostile,
      eventType: 'invoice.paid',
      invoiceId: 'i',
      environment: 'test',
      url: `http://x/${hostile}`,
      target: 'webhook',
      attempt: 1,
      trigger: 'scheduled',
      startedAt: '2024-01-01T00:00:00.000Z',
      durationMs: 1,
      responseStatus: null,
      ok: false,
      error: hostile,
      status: 'retrying',
      nextAttemptAt: null,
    };
    expect(attemptLine(c, line)).not.toMatch(UNSAFE);
  });
});
