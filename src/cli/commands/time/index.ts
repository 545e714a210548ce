import { defineCommand, withHandler } from '../../spec.js';

export const showTimeSpec = defineCommand({
  name: 'time show',
  summary: "show the emulator's clock",
});

export const advanceTimeSpec = defineCommand({
  name: 'time advance',
  summary: 'move the clock forward and run what falls due (expiries, retries)',
  args: [{ name: 'duration', description: '90s, 15m, 2h, 1d, or seconds' }],
  examples: ['svc time advance 1h', 'svc time advance 5m --json'],
});

export const resetTimeSpec = defineCommand({
  name: 'time reset',
  summary: 'put the clock back to the real time (or to --clock-start)',
  description:
    'Undoes every `svc time advance`: the clock is the real time again, or its start for an emulator started with --clock-start. Invoices and deliveries keep the times they have; what fell due stays done. `svc reset` and `svc dev --reset` put the clock back too.',
  examples: ['svc time reset', 'svc time reset --json'],
});

export const timeCommands = [
  withHandler(showTimeSpec, async () => (await import('./show.js')).showTimeCommand),
  withHandler(advanceTimeSpec, async () => (await import('./advance.js')).advanceTimeCommand),
  withHandler(resetTimeSpec, async () => (await import('./reset.js')).resetTimeCommand),
];
