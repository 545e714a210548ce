/**
 * The typed client's `controlToken` (CONTRACT §12, issue 28): sent on the contract's control
 * operations only, over node:http and over fetch (the dashboard's transport) alike, and given to
 * stream readers by `controlHeaders()`. A real emulator reached through this machine's non-loopback
 * address, where the token is required; a recording server shows what goes out with each call.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, readEvents } from '../../src/client/typed.js';
import type { TestEmulator } from '../helpers/emulator.js';
import { ikey } from '../helpers/emulator.js';
import { remoteControlPlane } from '../helpers/remote-control-plane.js';

const TOKEN = 'client-token-0123456789';
const plane = remoteControlPlane(TOKEN, '{}');
const seen = plane.seen;
let emu: TestEmulator;
let remote: string;
let recorderUrl: string;
beforeAll(() => {
  ({ emu, remote, recorderUrl } = plane);
});

const transports = { 'node:http': undefined, fetch: globalThis.fetch } as const;

describe('createClient({ controlToken })', () => {
  for (const [name, fetch] of Object.entries(transports)) {
    it(`reaches a remote control plane with it, and is refused without it (${name})`, async () => {
      const withToken = createClient({ baseUrl: remote, partnerKey: emu.keys.test.partnerKey, controlToken: TOKEN, fetch });
      const clock = await withToken.getClock();
      expect(clock.ok, JSON.stringify(clock)).toBe(true);
      // A control route that takes the partner key in Authorization: the token goes in its own header.
      expect((await withToken.getWebhookChaos()).ok).toBe(true);

      const without = createClient({ baseUrl: remote, partnerKey: emu.keys.test.partnerKey, fetch });
      const refused = await without.advanceClock({ body: { seconds: 60 } });
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect([refused.status, refused.error.code]).toEqual([403, 'control_plane_forbidden']);
      const wrong = createClient({ baseUrl: remote, controlToken: `${TOKEN}x`, fetch });
      expect((await wrong.getClock()).status).toBe(403);
      // The refusals changed nothing.
      const after = await withToken.getClock();
      expect(after.ok && clock.ok && after.data.offsetSeconds).toBe(clock.ok && clock.data.offsetSeconds);
    });

    it(`sends it on control operations only, never on the API's (${name})`, async () => {
      seen.length = 0;
      const client = createClient({ baseUrl: recorderUrl, merchantKey: emu.keys.test.merchantKey, controlToken: TOKEN, fetch });
      await client.getHealth();
      await client.createInvoice({ body: { amount: '1.00' }, idempotencyKey: ikey() });
      await client.listInvoices();
      expect(seen).toEqual([
        { path: '/__emulator/health', token: TOKEN },
        { path: '/v1/invoices', token: undefined },
        { path: '/v1/invoices', token: undefined },
      ]);
    });
  }

  it('gives a stream reader the header it needs (controlHeaders), and none without a token', async () => {
    const client = createClient({ baseUrl: remote, controlToken: TOKEN });
    expect(client.controlHeaders()).toEqual({ 'svc-control-token': TOKEN });
    expect(createClient({ baseUrl: remote }).controlHeaders()).toEqual({});
    // Raw fetch on purpose: streams have no method; their reader sends these headers itself.
    const open = (headers: Record<string, string>) => fetch(client.url('streamChanges'), { headers: { accept: 'text/event-stream', ...headers } });
    const refused = await open({});
    expect(refused.status).toBe(403);
    await refused.body?.cancel();
    const stream = await open(client.controlHeaders());
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
  });

  it('readEvents reads a control stream with those headers, and rejects with the status without them', async () => {
    const client = createClient({ baseUrl: remote, controlToken: TOKEN });
    await expect(readEvents(client.url('streamChanges'), {}, () => undefined)).rejects.toMatchObject({ status: 403 });
    const controller = new AbortController();
    const events: string[] = [];
    const reading = readEvents(client.url('streamChanges'), { headers: client.controlHeaders(), signal: controller.signal }, (event) => {
      events.push(event);
      if (event === 'change') controller.abort();
    }).catch((error: Error) => error.name);
    // A write after the stream opened arrives as a `change` (the reader ends the stream on it).
    while (!events.includes('ready')) await new Promise((resolve) => setTimeout(resolve, 10));
    await emu.client.test.createInvoice({ body: { amount: '1.00' }, idempotencyKey: ikey() });
    expect(await reading).toBe('AbortError');
    expect(events.slice(0, 2)).toEqual(['ready', 'change']);
  });

  it('is needed on loopback too (CONTRACT §8): the in-process emulator’s own client carries it', async () => {
    expect(emu.client.test.controlHeaders()).toEqual({ 'svc-control-token': TOKEN });
    expect((await emu.client.test.getClock()).ok).toBe(true);
  });
});
