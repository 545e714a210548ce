import type { CommandSpec } from '../../spec.js';

export const timeCommands: CommandSpec[] = [
  {
    name: 'time show',
    summary: "show the emulator's clock",
    load: async () => (await import('./show.js')).showTimeCommand,
  },
  {
    name: 'time advance',
    summary: 'move the clock forward and run what falls due (expiries, retries)',
    args: [{ name: 'duration', description: '90s, 15m, 2h, 1d, or seconds' }],
    examples: ['svc time advance 1h', 'svc time advance 5m --json'],
    load: async () => (await import('./advance.js')).advanceTimeCommand,
  },
];
