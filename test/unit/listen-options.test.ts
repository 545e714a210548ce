import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { humanListenLines } from '../../src/cli/output/listen-events.js';
import { styleFor } from '../../src/cli/output/style.js';
import { parseEvents, parseForwardTo, parseHeaders, parseTimeout } from '../../src/listen/target.js';

describe('svc webhook listen --forward-to', () => {
  it.each([
    ['3000', 'http://localhost:3000/'],
    ['3000/hooks', 'http://localhost:3000/hooks'],
    [':3000/hooks', 'http://localhost:3000/hooks'],
    ['localhost:3000/hooks', 'http://localhost:3000/hooks'],
    ['127.0.0.1:8080', 'http://127.0.0.1:8080/'],
    ['app.test/hooks?x=1', 'http://app.test/hooks?x=1'],
    ['http://localhost:3000/hooks', 'http://localhost:3000/hooks'],
    ['https://example.com/hooks', 'https://example.com/hooks'],
  ])('%s → %s', (given, expected) => {
    expect(parseForwardTo(given)).toBe(expected);
  });

  it.each([
    [undefined, /missing required option --forward-to/],
    ['', /missing required option --forward-to/],
    ['70000', /not a port between 1 and 65535/],
    ['0', /not a port between 1 and 65535/],
    ['ftp://example.com/x', /uses ftp, not http or https/],
    ['http://user:pw@localhost:3000/', /must not carry credentials/],
    ['http://', /is not a URL/],
  ])('refuses %s with a usage error naming the flag', (given, message) => {
    const error = (() => {
      try {
        parseForwardTo(given);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).flag).toBe('--forward-to');
    expect((error as UsageError).message).toMatch(message);
  });
});

describe('svc webhook listen options', () => {
  it('--events: known types, deduplicated; unknown ones named', () => {
    expect(parseEvents(undefined)).toBeNull();
    expect(parseEvents('invoice.paid, invoice.expired,invoice.paid')).toEqual(['invoice.paid', 'invoice.expired']);
    expect(() => parseEvents('invoice.paid,invoice.nope')).toThrow(/unknown event type invoice\.nope/);
    expect(() => parseEvents('invoice.payed')).toThrow(/unknown event type invoice\.payed; known: .*\. Did you mean "invoice\.paid"\?$/);
    expect(() => parseEvents(',')).toThrow(/at least one event type/);
  });

  it("--header: 'Name: value'; the delivery's own headers cannot be replaced", () => {
    expect(parseHeaders(['X-A: 1', 'X-B:two words '])).toEqual({ 'X-A': '1', 'X-B': 'two words' });
    expect(() => parseHeaders(['no colon'])).toThrow(/--header must look like 'Name: value'/);
    expect(() => parseHeaders(['X-Service-Signature: forged'])).toThrow(/cannot set X-Service-Signature/);
    expect(() => parseHeaders(['content-type: text/plain'])).toThrow(/cannot set content-type/);
  });

  it('--timeout: 1 to 300 seconds, default 30', () => {
    expect(parseTimeout(undefined)).toBe(30);
    expect(parseTimeout(5)).toBe(5);
    expect(() => parseTimeout(301)).toThrow(/from 1 to 300/);
  });
});

describe('svc webhook listen human lines', () => {
  const plain = styleFor(false);
  const colour = styleFor(true);
  const text = (lines: { text: string }[]) => lines.map((l) => l.text);

  it('prints the lines of the issue: Ready!, -->, <--', () => {
    expect(
      text(
        humanListenLines(
          { type: 'ready', mode: 'local', forwardTo: 'http://localhost:3000/hooks', secret: 'whsec_abc', secretSource: 'listener', events: null },
          plain,
        ),
      ),
    ).toEqual(['Ready! Forwarding to http://localhost:3000/hooks · signing secret whsec_abc (^C to quit)']);
    expect(text(humanListenLines({ type: 'event', eventType: 'invoice.paid', eventId: 'inv-2', attempt: 1 }, plain))).toEqual(['--> invoice.paid [inv-2]']);
    expect(
      text(
        humanListenLines(
          { type: 'forwarded', eventType: 'invoice.paid', eventId: 'inv-2', method: 'POST', url: 'http://localhost:3000/hooks', status: 200, durationMs: 12.4 },
          plain,
        ),
      ),
    ).toEqual(['<-- [200] invoice.paid [inv-2] POST http://localhost:3000/hooks (12 ms)']);
  });

  it('shows failures in red with the reason; warnings and fatal errors go to stderr', () => {
    const [line] = humanListenLines(
      {
        type: 'forward_failed',
        eventType: 'invoice.paid',
        eventId: 'inv-2',
        method: 'POST',
        url: 'http://localhost:3000/hooks',
        status: null,
        durationMs: 1,
        reason: 'connection_refused: 127.0.0.1:3000',
        errorKind: 'connection_refused',
      },
      colour,
    );
    expect(line).toEqual({
      stream: 'stdout',
      text: colour.red('<-- [ERR] invoice.paid [inv-2] POST http://localhost:3000/hooks (1 ms) connection_refused: 127.0.0.1:3000'),
    });
    expect(line!.text).toContain('\u001b[31m');
    expect(humanListenLines({ type: 'warning', message: 'careful' }, plain)).toEqual([{ stream: 'stderr', text: 'warning careful' }]);
    expect(humanListenLines({ type: 'fatal', message: 'gone', code: 'x', hint: 'do this', exitCode: 3 }, plain)).toEqual([
      { stream: 'stderr', text: 'error gone' },
      { stream: 'stderr', text: 'do this' },
    ]);
  });
});
