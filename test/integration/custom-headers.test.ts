/**
 * Custom webhook headers (CONTRACT §5 and §8): what cannot be sent is refused when saved. Before,
 * values undici refuses (non-ASCII, control characters) and connection headers were stored, and
 * then every delivery failed with UND_ERR_INVALID_ARG until the schedule gave up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let emu: TestEmulator;
let rx: Receiver;
const SECRET = 'whsec_custom_headers_0001';

beforeAll(async () => {
  emu = await startTestEmulator();
  rx = await startReceiver();
  dataOf(await emu.client.test.putWebhook({ body: { url: `${rx.url}/hooks`, secret: SECRET, customHeaders: { 'X-Before': 'kept' } } }));
});
afterAll(async () => {
  await emu?.stop();
  await rx?.close();
});

async function refused(customHeaders: Record<string, string>, param: string): Promise<string> {
  const res = await emu.client.test.putWebhook({ body: { url: `${rx.url}/hooks`, customHeaders } });
  expect(res.status, JSON.stringify(res)).toBe(400);
  if (res.ok) throw new Error('saved');
  expect(res.error).toMatchObject({ code: 'validation_failed', param });
  return res.error.message;
}

describe('custom header values', () => {
  it.each([
    ['a character above U+00FF', 'caf\u0101'],
    ['an emoji', 'ok \u{1F600}'],
    ['U+2028', 'a\u2028b'],
    ['a Latin-1 letter', 'caf\u00e9'],
    ['\\x01', 'a\u0001b'],
    ['DEL', 'a\u007fb'],
    ['a vertical tab', 'a\u000bb'],
  ])('with %s is refused, naming the header', async (_name, value) => {
    expect(await refused({ 'X-Tenant': value }, 'customHeaders.X-Tenant')).toContain('visible ASCII');
  });

  it('CR, LF and NUL are still refused as such', async () => {
    expect(await refused({ 'X-Split': 'a\r\nInjected: yes' }, 'customHeaders.X-Split')).toContain('CR, LF or NUL');
  });
});

describe('custom header names', () => {
  it.each([
    'Connection',
    'Keep-Alive',
    'Transfer-Encoding',
    'TE',
    'Trailer',
    'Upgrade',
    'Expect',
    'Proxy-Authorization',
    'proxy-connection',
    'Host',
    'Content-Length',
  ])('%s is refused as a connection or framing header', async (name) => {
    expect(await refused({ [name]: 'x' }, `customHeaders.${name}`)).toMatch(/connection or framing header|set by the emulator/);
  });

  it('the reserved names of §5 are refused; so is a name given twice in different case', async () => {
    for (const name of ['Content-Type', 'User-Agent', 'X-Service-Signature', 'x-service-signature']) {
      expect(await refused({ [name]: 'x' }, `customHeaders.${name}`)).toContain('set by the emulator');
    }
    expect(await refused({ 'X-Team': 'a', 'x-team': 'b' }, 'customHeaders.x-team')).toContain('given twice');
  });

  it('a refused save changes nothing', async () => {
    await refused({ 'X-After': '\u{1F600}' }, 'customHeaders.X-After');
    expect(dataOf(await emu.client.test.getWebhook()).customHeaders).toEqual({ 'X-Before': 'kept' });
  });
});

describe('what is accepted is delivered', () => {
  it('visible ASCII, spaces and tabs reach the receiver as saved', async () => {
    const customHeaders = {
      'X-Tab': 'a\tb',
      'X-Visible': '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
      'X-Spaced': 'a b c',
      Authorization: 'Bearer abc.def',
      'X-Empty': '',
    };
    dataOf(await emu.client.test.putWebhook({ body: { url: `${rx.url}/hooks`, customHeaders } }));
    const before = rx.requests.length;
    await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } });
    const [request] = (await rx.waitFor(before + 1)).slice(before);
    expect(request!.headers).toMatchObject({
      'x-tab': 'a\tb',
      'x-visible': customHeaders['X-Visible'],
      'x-spaced': 'a b c',
      authorization: 'Bearer abc.def',
      'x-empty': '',
    });
  });
});
