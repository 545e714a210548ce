import { afterEach } from 'vitest';
import type { LiveCli } from './cli.js';
import type { StartEmulatorOptions } from '../../src/server/start.js';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * Resources a test starts and the file's afterEach stops: CLI processes are killed first (so
 * nothing they hold is still in use), then the cleanups run. Call once at the top of a test file.
 */
export function perTest() {
  const running: LiveCli[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
    await Promise.all(cleanups.splice(0).map((f) => f()));
  });
  return {
    /** Kills `cli` after the test. */
    track(cli: LiveCli): LiveCli {
      running.push(cli);
      return cli;
    },
    /** Runs `fn` after the test. */
    defer(fn: () => Promise<unknown>): void {
      cleanups.push(fn);
    },
    async emulator(options: StartEmulatorOptions = {}): Promise<TestEmulator> {
      const emu = await startTestEmulator(options);
      cleanups.push(() => emu.stop());
      return emu;
    },
    async receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
      const rx = await startReceiver(...args);
      cleanups.push(() => rx.close());
      return rx;
    },
  };
}
