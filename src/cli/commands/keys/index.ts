import { defineCommand, withHandler } from '../../spec.js';

export const listKeysSpec = defineCommand({
  name: 'keys list',
  summary: "the keys in use and where they come from; the local emulator's default keys",
});

export const keyCommands = [withHandler(listKeysSpec, async () => (await import('./list.js')).listKeysCommand)];
