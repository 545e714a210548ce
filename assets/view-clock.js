// The clock: emulator time, and advancing it.
import { api } from './api.js';
import { button, h, time } from './dom.js';

export async function clockView() {
  const clock = await api('getClock');
  const input = h('input', { id: 'advance-seconds', value: '3600', size: 8, inputmode: 'numeric', 'aria-label': 'seconds to advance' });
  return [
    h('h1', {}, 'Clock'),
    h('p', {}, 'Emulator time ', h('strong', {}, time(clock.now)), ` (${clock.offsetSeconds} s ahead of the wall clock)`),
    h(
      'div',
      { class: 'actions' },
      input,
      button('Advance', async () => {
        const r = await api('advanceClock', { body: { seconds: Number(input.value) } });
        return `Advanced ${r.advancedSeconds} s: ${r.expired} invoice(s) expired, ${r.deliveryAttempts} delivery attempt(s) made`;
      }),
    ),
  ];
}
