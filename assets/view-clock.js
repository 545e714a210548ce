// The clock: the emulator's time against the real time, what falls due next (invoice expiries,
// delivery retries), and advancing it, in the words `svc time` uses (`+1h1m ahead of real time`).
import { api } from './api.js';
import { laneChart } from './chart-lanes.js';
import { button, card, clockTime, facts, field, h, time } from './dom.js';
import { formatClockOffset, formatDuration, parseDuration } from './page-rules.js';
import { legend } from './svg.js';

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
/** What an advance ran, as `svc time advance` says it. */
const advanced = (r) =>
  `Advanced ${formatDuration(Math.round(r.advancedSeconds * 1000))}: ${plural(r.expired, 'expiry', 'expiries')}, ${plural(r.deliveryAttempts, 'delivery attempt', 'delivery attempts')}; now ${formatClockOffset(r.offsetSeconds)}`;
const untilText = (ms) => (ms <= 0 ? 'due now' : `in ${formatDuration(Math.max(1000, Math.ceil(ms / 1000) * 1000))}`);

/** Invoice expiries and delivery retries still to come, soonest first. */
async function dueNext(now) {
  const [created, partial, retrying, pending] = await Promise.all([
    api('listPartnerInvoices', { query: { status: 'CREATED', limit: 100 } }),
    api('listPartnerInvoices', { query: { status: 'PARTIALLY_PAID', limit: 100 } }),
    api('listDeliveries', { query: { status: 'retrying', limit: 100 } }),
    api('listDeliveries', { query: { status: 'pending', limit: 100 } }),
  ]);
  const expiries = [...created.data, ...partial.data].map((i) => ({
    t: Date.parse(i.expiresAt),
    kind: 'expiry',
    text: `Invoice …${i.id.slice(-8)} expires`,
    href: `#/invoices/${i.id}`,
  }));
  const retries = [...retrying.data, ...pending.data]
    .filter((d) => d.nextAttemptAt)
    .map((d) => ({
      t: Date.parse(d.nextAttemptAt),
      kind: 'retry',
      text: `${d.eventType} → ${d.target}: attempt #${d.attemptCount + 1}`,
      href: `#/deliveries/${d.id}`,
    }));
  return [...expiries, ...retries].filter((x) => x.t >= now).sort((a, b) => a.t - b.t);
}

export async function clockView() {
  const clock = await api('getClock');
  const now = Date.parse(clock.now);
  const real = now - clock.offsetSeconds * 1000;
  const due = await dueNext(now);
  const next = due.slice(0, 8);
  const input = h('input', { id: 'advance-by', value: '1h', size: 8, autocomplete: 'off', spellcheck: 'false' });
  const advance = async (seconds) => advanced(await api('advanceClock', { body: { seconds } }));
  const chart = laneChart({
    label: 'Emulator time against real time, and what falls due next',
    summary: `Emulator time ${clockTime(now)}, real time ${clockTime(real)}: ${formatClockOffset(clock.offsetSeconds)}. ${
      next.length ? `Next due: ${next[0].text} ${untilText(next[0].t - now)}.` : 'Nothing falls due.'
    }`,
    lanes: [
      {
        key: 'clock',
        label: 'Clocks',
        marks: [
          { t: real, kind: 'real', shape: 'circle', tone: 'neutral', title: `Real time ${clockTime(real)}` },
          { t: now, kind: 'emulator', shape: 'square', tone: 'info', title: `Emulator time ${clockTime(now)}` },
        ],
      },
      {
        key: 'expiries',
        label: 'Invoice expiries',
        marks: next.filter((x) => x.kind === 'expiry').map((x) => ({ ...x, shape: 'diamond', tone: 'bad', title: `${x.text} ${untilText(x.t - now)}` })),
      },
      {
        key: 'retries',
        label: 'Delivery retries',
        marks: next.filter((x) => x.kind === 'retry').map((x) => ({ ...x, shape: 'circle', tone: 'warn', title: `${x.text} ${untilText(x.t - now)}` })),
      },
    ],
    rules: [
      ...(clock.offsetSeconds ? [{ t: real, kind: 'real', label: 'real', className: 'real' }] : []),
      { t: now, kind: 'now', label: 'emulator', className: 'now' },
    ],
    legend: legend(h, [
      { key: 'real', label: 'real time', className: 'shape-circle neutral' },
      { key: 'emulator', label: 'emulator time (square)', className: 'shape-square' },
      { key: 'expiry', label: 'invoice expiry (diamond)', className: 'shape-diamond bad' },
      { key: 'retry', label: 'delivery retry', className: 'shape-circle warn' },
    ]),
    className: 'clock-chart',
  });
  return [
    h('div', { class: 'page-head' }, h('h1', {}, 'Clock')),
    h(
      'div',
      { class: 'grid-2' },
      card(
        null,
        facts([
          ['Emulator time', h('strong', { class: 'big', id: 'emulator-time' }, time(clock.now))],
          ['Real time', time(new Date(real).toISOString())],
          ['Offset', h('span', { id: 'clock-offset' }, formatClockOffset(clock.offsetSeconds))],
          ['Next due', next.length ? `${next[0].text}, ${untilText(next[0].t - now)}` : 'nothing'],
        ]),
      ),
      card(
        'Advance the clock',
        h(
          'form',
          {
            class: 'advance',
            // Enter in the field clicks the Advance button (the form's default button): nothing else to do.
            onsubmit: (e) => e.preventDefault(),
          },
          field('Advance by', input, 'A duration, as svc time advance takes it: 90s, 15m, 2h, 1d.'),
          h(
            'div',
            { class: 'buttons' },
            button(
              'Advance',
              () => {
                const ms = parseDuration(input.value);
                if (!ms) throw new Error(`"${input.value}" is not a duration: try 90s, 15m, 2h or 1d.`);
                return advance(ms / 1000);
              },
              { type: 'submit' },
            ),
            ['1m', '15m', '1h', '1d'].map((d) => button(`+${d}`, () => advance(parseDuration(d) / 1000), { class: 'secondary' })),
            next.length
              ? button(`To the next due (${untilText(next[0].t - now)})`, () => advance(Math.max(1, Math.ceil((next[0].t - now) / 1000))), {
                  class: 'secondary',
                })
              : null,
            // `svc time reset`: the clock back to the real time (or to --clock-start); what was due stays due.
            clock.offsetSeconds !== 0
              ? button('Back to real time', async () => `Clock reset: now ${formatClockOffset((await api('resetClock')).offsetSeconds)}`, {
                  class: 'secondary',
                })
              : null,
          ),
        ),
      ),
    ),
    card('Time line', chart, { className: 'chart-card' }),
    card(
      `Falls due next (${due.length})`,
      next.length
        ? h(
            'ol',
            { class: 'due' },
            next.map((x) =>
              h(
                'li',
                { 'data-kind': x.kind, 'data-at': new Date(x.t).toISOString() },
                h('time', { datetime: new Date(x.t).toISOString() }, clockTime(x.t)),
                h('span', { class: 'kind' }, x.kind === 'expiry' ? 'expiry' : 'retry'),
                h('a', { href: x.href }, x.text),
                h('span', { class: 'muted' }, untilText(x.t - now)),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'Nothing is due: no open invoice, no retry scheduled.'),
    ),
  ];
}
