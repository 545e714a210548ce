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

export const timeCommands = [
  withHandler(showTimeSpec, async () => (await import('./show.js')).showTimeCommand),
  withHandler(advanceTimeSpec, async () => (await import('./advance.js')).advanceTimeCommand),
];
