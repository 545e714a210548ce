import type { CommandSpec } from '../../spec.js';

export const keyCommands: CommandSpec[] = [
  {
    name: 'keys list',
    summary: "the keys in use and where they come from; the local emulator's default keys",
    load: async () => (await import('./list.js')).listKeysCommand,
  },
];
