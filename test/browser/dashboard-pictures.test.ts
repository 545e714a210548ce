import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// Page-side code (page.evaluate) runs in the browser; this project compiles without the DOM lib.
declare const getComputedStyle: any;
declare const document: any;

/**
 * Issue 43: the dashboard's pictures draw what the API answers. On a frozen clock moved by hand (so
 * that things happen in different minutes, and a retry falls due), an invoice's timeline has one item
 * per event, payment and attempt, in order, and its expiry; the per-minute charts count what the API
 * lists; the latency chart has one dot per request; the attempts chart one mark per attempt.
 */
let browser: Browser;
let emu: TestEmulator;
let rx: Receiver;
let invoiceId: string;
const START = Date.parse('2030-01-01T09:00:00Z');

const partner = () => ({ key: emu.keys.test.partnerKey });
async function advance(seconds: number) {
  expect((await emu.call('POST', '/__emulator/clock/advance', { body: { seconds } })).status).toBe(200);
}
/** Waits until no delivery is waiting for a first attempt (the frozen clock has them all due). */
async function settled() {
  for (let i = 0; i < 200; i++) {
    const list = (await emu.call('GET', '/v1/partner/webhook/deliveries?limit=100', partner())).body.data as { attemptCount: number }[];
    if (list.every((d) => d.attemptCount > 0)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('deliveries were not attempted');
}

beforeAll(async () => {
  browser = await launchBrowser();
  emu = await startTestEmulator({ clockStart: new Date(START).toISOString() });
  // The first delivery fails: a retry is scheduled, and made when the clock reaches it.
  rx = await startReceiver((_req, n) => (n === 1 ? { status: 500, body: 'not yet' } : { status: 200 }));
  await emu.call('PUT', '/v1/partner/webhook', { ...partner(), body: { url: `${rx.url}/hooks`, secret: 'whsec_pictures_tests_1' } });
  const created = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '20.00' } });
  invoiceId = created.body.id;
  await settled();
  await advance(75);
  await emu.call('POST', `/v1/test_helpers/invoices/${invoiceId}/payments`, { ...partner(), body: { amount: '5.00' } });
  await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: 'not-money' } });
  await settled();
  await advance(130);
  await emu.call('POST', `/v1/test_helpers/invoices/${invoiceId}/payments`, { ...partner(), body: { amount: '15.00', confirmed: false } });
  await settled();
  await advance(61);
  await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '3.00' } });
  await settled();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await emu?.stop();
  await rx?.close();
});

async function view(hash: string, width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${emu.url}/__emulator/ui/${hash}`);
  await page.waitForFunction((h) => document.body.dataset.ready === h, hash);
  return page;
}

interface Attempt {
  startedAt: string;
  trigger: string;
}

describe('the pictures draw what the API answers', () => {
  it("an invoice's timeline: one item per event, payment and attempt, in order, with the expiry", async () => {
    const events = (await emu.call('GET', `/__emulator/invoices/${invoiceId}/events`)).body.data as { createdAt: string; data: { sequence: number } }[];
    const payments = (await emu.call('GET', `/__emulator/invoices/${invoiceId}/payments`)).body.data as { createdAt: string }[];
    const deliveries = (await emu.call('GET', `/v1/partner/webhook/deliveries?invoiceId=${invoiceId}`, partner())).body.data as { id: string }[];
    const attempts: Attempt[] = [];
    for (const d of deliveries) attempts.push(...(await emu.call('GET', `/v1/partner/webhook/deliveries/${d.id}`, partner())).body.attempts);
    const invoice = (await emu.call('GET', `/v1/partner/invoices/${invoiceId}`, partner())).body;
    // What the setup made: 3 events (created, partially_paid, payment_detected), 2 payments, and
    // the failed first attempt with its retry among the attempts.
    expect([events.length, payments.length]).toEqual([3, 2]);
    expect(attempts.length).toBe(deliveries.length + 1);

    const page = await view(`#/invoices/${invoiceId}`);
    const items = await page
      .locator('ol.activity > li')
      .evaluateAll((lis) => lis.map((li) => ({ kind: li.getAttribute('data-kind')!, at: li.getAttribute('data-at')! })));
    const of = (kind: string) => items.filter((i) => i.kind === kind).map((i) => i.at);
    const iso = (t: string) => new Date(t).toISOString();
    expect(of('event')).toEqual(events.map((e) => iso(e.createdAt)));
    expect(of('payment')).toEqual(payments.map((p) => iso(p.createdAt)));
    expect(of('attempt')).toEqual(attempts.map((a) => iso(a.startedAt)).sort());
    expect(of('expiry')).toEqual([iso(invoice.expiresAt)]);
    // In time order, on one axis: the list, and the marks the picture draws (the same count of each).
    const times = items.map((i) => Date.parse(i.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const marks = await page.locator('svg.lane-chart [data-kind]').evaluateAll((els) => els.map((el) => el.getAttribute('data-kind')));
    for (const kind of ['event', 'payment', 'attempt']) expect(marks.filter((k) => k === kind).length, kind).toBe(of(kind).length);
    expect(marks.filter((k) => k === 'expiry')).toHaveLength(1);
    // Events once numbered (issue 38: "1. ▸ 1. invoice.created"): no list marker beside the text's number.
    const numbering = await page
      .locator('ol.activity > li[data-kind="event"]')
      .evaluateAll((lis) => lis.map((li) => ({ marker: getComputedStyle(li).listStyleType, text: (li as unknown as { innerText: string }).innerText })));
    for (const n of numbering) {
      expect(n.marker).toBe('none');
      expect(n.text.match(/#\d+|\b\d+\.\s/g)).toHaveLength(1);
    }
    await page.close();
  });

  it('deliveries per minute by outcome count what the API lists, and the attempts chart marks every attempt', async () => {
    const page = await view('#/deliveries');
    const chart = page.locator('figure.deliveries-per-minute');
    const start = Date.parse((await chart.getAttribute('data-window-start'))!);
    const drawn = await chart
      .locator('g.bucket')
      .evaluateAll((gs) => gs.map((g) => ({ minute: g.getAttribute('data-minute')!, counts: JSON.parse(g.getAttribute('data-counts')!) })));
    const listed = (await emu.call('GET', '/v1/partner/webhook/deliveries?limit=100', partner())).body.data as {
      id: string;
      createdAt: string;
      status: string;
      attemptCount: number;
    }[];
    const expected: Record<string, Record<string, number>> = {};
    for (const d of listed) {
      const t = Date.parse(d.createdAt);
      if (t < start) continue;
      const minute = new Date(Math.floor(t / 60_000) * 60_000).toISOString();
      expected[minute] ??= { succeeded: 0, retrying: 0, pending: 0, failed: 0 };
      expected[minute]![d.status]!++;
    }
    const nonZero = Object.fromEntries(drawn.filter((b) => Object.values(b.counts as Record<string, number>).some(Boolean)).map((b) => [b.minute, b.counts]));
    expect(nonZero).toEqual(expected);
    // The deliveries were made in four different minutes of the frozen clock.
    expect(Object.keys(expected)).toHaveLength(4);
    expect(Number(await chart.getAttribute('data-total'))).toBe(listed.length);

    // One lane per delivery listed (the newest 12), one mark per attempt in each.
    const lanes = await page
      .locator('figure.attempts-chart g.lane')
      .evaluateAll((gs) => gs.map((g) => ({ id: g.getAttribute('data-lane'), attempts: g.querySelectorAll('[data-kind="attempt"]').length })));
    expect(lanes.map((l) => l.id)).toEqual(listed.slice(0, 12).map((d) => d.id));
    expect(lanes.map((l) => l.attempts)).toEqual(listed.slice(0, 12).map((d) => d.attemptCount));
    await page.close();
  });

  it('the request journal: status classes per minute and one latency dot per request', async () => {
    // Read through the control plane (not journaled), so the journal stays as the page reads it.
    const entries = (await emu.call('GET', '/__emulator/requests?limit=100&fromDashboard=false')).body.data as { at: string; status: number | null }[];
    const page = await view('#/requests');
    const chart = page.locator('figure.requests-per-minute');
    const start = Date.parse((await chart.getAttribute('data-window-start'))!);
    const inWindow = entries.filter((e) => Date.parse(e.at) >= start);
    const classOf = (s: number | null) => (s === null ? 'dropped' : `${String(s)[0]}xx`);
    const expected: Record<string, number> = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, dropped: 0 };
    for (const e of inWindow) expected[classOf(e.status)]!++;
    expect(JSON.parse((await chart.getAttribute('data-totals'))!)).toEqual(expected);
    expect(expected['4xx']).toBe(1);
    // Each minute's bar adds up to the entries of that minute.
    const drawn = await chart
      .locator('g.bucket')
      .evaluateAll((gs) =>
        gs.map((g) => [
          g.getAttribute('data-minute')!,
          Object.values(JSON.parse(g.getAttribute('data-counts')!) as Record<string, number>).reduce((a, b) => a + b, 0),
        ]),
      );
    for (const [minute, n] of drawn) {
      const t = Date.parse(minute as string);
      expect(n, minute as string).toBe(inWindow.filter((e) => Date.parse(e.at) >= t && Date.parse(e.at) < t + 60_000).length);
    }
    const latency = page.locator('figure.chart', { has: page.locator('svg.latency-chart') });
    expect(Number(await latency.getAttribute('data-count'))).toBe(inWindow.length);
    expect(await latency.locator('circle.dot').count()).toBe(inWindow.length);
    await page.close();
  });
});
