// The package's import (`svc-emulator`, dist/index.js): the Node check and the compile cache first
// (src/runtime.ts), then the API. Tests import src/index.ts itself, without these process-wide effects.
//
// The emulator's code is imported when `startEmulator` is first called, not by this module: Node
// compiles every module of a static import graph before any of it runs, so the compile cache that
// prepareRuntime() turns on below could only serve what is imported after it (bench #13). What stays
// static is small (clocks, the typed client, webhook signatures). test/unit/entry-index.test.ts holds
// that this module exports what src/index.ts does.
import type { Emulator, StartEmulatorOptions } from '../server/start.js';
import { prepareRuntime } from '../runtime.js';

prepareRuntime();

export { manualClock, systemClock } from '../clock/clock.js';
export { createClient } from '../client/typed.js';
export { verifyWebhook, signatureHeader, computeSignature, SIGNATURE_HEADER, WebhookVerificationError } from '../webhooks/signature.js';
export { verify } from '../fidelity/verify/index.js';

/** Starts the emulator in-process (src/server/start.ts, loaded on the first call). */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  const { startEmulator: start } = await import('../server/start.js');
  return start(options);
}
