import { describe, expect, it } from 'vitest';
import { ALL_COMMANDS } from '../../src/cli/commands/index.js';

/**
 * Every command's handler module loads (its imports resolve, it exports a function). Kept out of the
 * unit tests: loading them imports most of the program (the HTTP client, the emulator, undici).
 */
describe('command handlers', () => {
  it.each(ALL_COMMANDS.map((c) => [c.name, c] as const))('svc %s loads a handler function', async (_name, spec) => {
    expect(typeof (await spec.load())).toBe('function');
  });
});
