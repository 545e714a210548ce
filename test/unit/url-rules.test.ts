import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkWebhookUrl, MAX_WEBHOOK_URL_LENGTH, TUNNEL_DOMAINS } from '../../src/domain/url-rules.js';

/** The message of a rejection, or 'ok'. */
function outcome(raw: unknown, env: 'test' | 'live'): string {
  const r = checkWebhookUrl(raw, env);
  return r.ok ? 'ok' : r.message;
}

describe('both environments', () => {
  it.each([
    [undefined, /must be a string/],
    [42, /must be a string/],
    [{ href: 'https://example.com' }, /must be a string/],
    ['', /must not be empty/],
    ['example.com/hook', /not a valid absolute URL/],
    ['/hooks/svc', /not a valid absolute URL/],
    ['https://', /not a valid absolute URL/],
    ['http://exa mple.com', /spaces or control characters/],
    [' https://example.com/hook', /spaces or control characters/],
    ['https://example.com/ho\nok', /spaces or control characters/],
    ['ftp://example.com/hook', /http or https, not ftp/],
    ['file:///etc/passwd', /http or https, not file/],
    ['javascript:alert(1)', /http or https, not javascript/],
    ['ws://example.com/hook', /http or https, not ws/],
    [`https://example.com/${'a'.repeat(MAX_WEBHOOK_URL_LENGTH)}`, /characters long; the limit is 2048/],
    ['https://example.com:0/hook', /port 0/],
    ['https://example.com:00/hook', /port 0/],
    ['https://example..com/hook', /empty label/],
    ['https://.example.com/hook', /empty label/],
    ['https://example.com../hook', /empty label/],
    ['https://-example.com/hook', /starts or ends with a hyphen/],
    ['https://example-.com/hook', /starts or ends with a hyphen/],
    ['https://api.-x.example.com/hook', /starts or ends with a hyphen/],
    [`https://${'a'.repeat(64)}.example.com/hook`, /label longer than 63/],
    [`https://${'abcdefghi.'.repeat(26)}com/hook`, /longer than 253/],
    ['https://a!b.example.com/hook', /only hold letters, digits/],
    ["https://a'b.example.com/hook", /only hold letters, digits/],
  ])('%j is rejected in test and live', (raw, message) => {
    expect(outcome(raw, 'test')).toMatch(message);
    expect(outcome(raw, 'live')).toMatch(message);
  });

  it('accepts exactly 2048 characters', () => {
    const base = 'https://example.com/';
    const raw = base + 'a'.repeat(MAX_WEBHOOK_URL_LENGTH - base.length);
    expect(raw.length).toBe(2048);
    expect(outcome(raw, 'live')).toBe('ok');
  });

  it('returns the parsed URL', () => {
    const r = checkWebhookUrl('https://Example.COM:8443/hooks?x=1', 'live');
    expect(r.ok && r.url.href).toBe('https://example.com:8443/hooks?x=1');
  });
});

describe('test environment accepts any http(s) host', () => {
  it.each([
    'http://localhost:3000/webhooks',
    'http://127.0.0.1:4242/hook',
    'http://[::1]:8080/hook',
    'http://0x7f000001/hook',
    'http://10.0.0.5/hook',
    'http://my-laptop/hook',
    'http://app.local/hook',
    'https://abc-def.trycloudflare.com/hook',
    'https://1234.ngrok-free.app/hook',
    'http://user:pass@localhost/hook',
    'https://example.com/hook',
    'http://my_service:8080/hook', // docker compose service names may hold underscores
    'http://receiver.:3000/hook',
    `https://${'a'.repeat(63)}.example.com/hook`,
  ])('%s', (raw) => {
    expect(outcome(raw, 'test')).toBe('ok');
  });
});

describe('live environment', () => {
  it.each([
    'https://example.com/hook',
    'https://hooks.example.com/svc?token=abc#frag',
    'https://example.com./hook', // the trailing dot is the same public name
    'https://api.shop.co.uk:8443/webhooks',
    'https://xn--bcher-kva.de/hook', // IDN, punycode
    'https://bücher.de/hook',
    'https://localhost-tools.com/hook', // contains "localhost" but is not it
    'https://mytrycloudflare.com/hook', // suffix without a label boundary is not the tunnel
    'https://ngrok.io.example.org/hook',
    'https://example.com/local', // rules look at the host only
  ])('accepts %s', (raw) => {
    expect(outcome(raw, 'live')).toBe('ok');
  });

  it.each([
    ['http://example.com/hook', /must use https/],
    ['https://user:pass@example.com/hook', /must not contain credentials/],
    ['https://user@example.com/hook', /must not contain credentials/],
    ['https://:secret@example.com/hook', /must not contain credentials/],
    ['https://localhost/hook', /must not point to localhost/],
    ['https://LOCALHOST:8443/hook', /must not point to localhost/],
    ['https://localhost./hook', /must not point to localhost/],
    ['https://api.localhost/hook', /must not point to localhost/],
    ['https://127.0.0.1/hook', /not the IP address 127\.0\.0\.1/],
    ['https://8.8.8.8/hook', /not the IP address 8\.8\.8\.8/], // even a public IP literal
    ['https://2130706433/hook', /not the IP address 127\.0\.0\.1/],
    ['https://0x7f000001/hook', /not the IP address 127\.0\.0\.1/],
    ['https://0177.0.0.1/hook', /not the IP address/],
    ['https://127.1/hook', /not the IP address/],
    ['https://169.254.169.254/latest/meta-data', /not the IP address/],
    ['https://[::1]/hook', /not the IP address ::1/],
    ['https://[::ffff:127.0.0.1]/hook', /not the IP address/],
    ['https://[fd00:ec2::254]/hook', /not the IP address/],
    ['https://[2606:4700:4700::1111]/hook', /not the IP address/],
    ['https://intranet/hook', /not a fully qualified domain name/],
    ['https://myserver./hook', /not a fully qualified domain name/],
    ['https://printer.local/hook', /non-public "\.local"/],
    ['https://svc.default.svc.cluster.local/hook', /non-public "\.local"/],
    ['https://host.docker.internal/hook', /non-public "\.internal"/],
    ['https://box.localdomain/hook', /non-public "\.localdomain"/],
    ['https://nas.lan/hook', /non-public "\.lan"/],
    ['https://router.home.arpa/hook', /non-public "\.home\.arpa"/],
    ['https://erp.corp/hook', /non-public "\.corp"/],
    ['https://shop.test/hook', /non-public "\.test"/],
    ['https://shop.invalid/hook', /non-public "\.invalid"/],
    ['https://shop.example/hook', /non-public "\.example"/],
    ['https://abcdefghijklmnop.onion/hook', /non-public "\.onion"/],
    ['https://printer.LOCAL./hook', /non-public "\.local"/],
    ['https://api.my-ns.svc/hook', /non-public "\.svc"/],
    ['https://abc-def.trycloudflare.com/hook', /trycloudflare\.com tunnel/],
    ['https://trycloudflare.com/hook', /trycloudflare\.com tunnel/],
    ['https://abc.trycloudflare.com./hook', /trycloudflare\.com tunnel/],
    ['https://ABC.TryCloudflare.com/hook', /trycloudflare\.com tunnel/],
    ['https://1234-5678.ngrok-free.app/hook', /ngrok-free\.app tunnel/],
    ['https://x.ngrok.io/hook', /ngrok\.io tunnel/],
    ['https://x.ngrok.app/hook', /ngrok\.app tunnel/],
    ['https://shy-cat.loca.lt/hook', /loca\.lt tunnel/],
    ['https://abc.localhost.run/hook', /localhost\.run tunnel/],
    ['https://abc.lhr.life/hook', /lhr\.life tunnel/],
    ['https://abc.serveo.net/hook', /serveo\.net tunnel/],
    ['https://abc-3000.euw.devtunnels.ms/hook', /devtunnels\.ms tunnel/],
    ['https://laptop.tail1234.ts.net/hook', /ts\.net tunnel/],
    ['https://cute-cat.playit.gg/hook', /playit\.gg tunnel/],
    ['https://abc.jprq.io/hook', /jprq\.io tunnel/],
    ['https://my_service.example.com/hook', /only hold letters, digits and hyphens/],
    ['https://168.63.129.16/hook', /not the IP address/],
  ])('rejects %s', (raw, message) => {
    expect(outcome(raw, 'live')).toMatch(message);
  });

  it('rejects every tunnel domain and its subdomains, with or without a trailing dot', () => {
    for (const domain of TUNNEL_DOMAINS) {
      for (const host of [domain, `abc.${domain}`, `a.b.${domain}.`]) {
        expect(outcome(`https://${host}/hook`, 'live'), host).toMatch(/tunnel/);
        expect(outcome(`https://${host}/hook`, 'test'), host).toBe('ok');
      }
    }
  });

  it('messages are one sentence', () => {
    const r = checkWebhookUrl('https://127.0.0.1/x', 'live');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/^[A-Z].*\.$/);
  });
});

describe('properties', () => {
  const octet = fc.integer({ min: 0, max: 255 });
  it('no IPv4 literal in any notation is accepted in live', () => {
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), fc.integer({ min: 0, max: 3 }), (bytes, form) => {
        const n = bytes.reduce((acc, b) => acc * 256 + b, 0);
        const host = [bytes.join('.'), String(n), `0x${n.toString(16)}`, `::ffff:${bytes.join('.')}`][form] ?? '';
        const raw = form === 3 ? `https://[${host}]/h` : `https://${host}/h`;
        expect(checkWebhookUrl(raw, 'live').ok).toBe(false);
        expect(checkWebhookUrl(raw, 'test').ok).toBe(true);
      }),
    );
  });

  it('never throws and is always ok in test for http(s) URLs that parse', () => {
    fc.assert(
      fc.property(fc.webUrl(), (raw) => {
        const r = checkWebhookUrl(raw, 'test');
        expect(r.ok || raw.length > MAX_WEBHOOK_URL_LENGTH || /[\s\u0000-\u001f\u007f]/.test(raw)).toBe(true);
        expect(typeof checkWebhookUrl(raw, 'live').ok).toBe('boolean');
      }),
    );
  });
});
