// The package's import (`svc-emulator`): dist/index.js runs dist/runtime.js (the Node check and the
// compile cache, src/runtime.ts), then this. Tests import src/index.ts itself, without those effects.
//
// The emulator's code is loaded when `startEmulator` is first called, not by the import: a receiver
// that only verifies webhook signatures never loads it, and the package's import stays a few
// milliseconds (bench #13). What stays here is small (clocks, the typed client, signatures).
// test/e2e/startup-modules.test.ts holds that dist/index.js exports what src/index.ts exports.
import type { Emulator, StartEmulatorOptions } from '../server/start.js';

export { manualClock, systemClock } from '../clock/clock.js';
export { createClient } from '../client/typed.js';
export { verifyWebhook, signatureHeader, computeSignature, SIGNATURE_HEADER, WebhookVerificationError } from '../webhooks/signature.js';
export { verify } from '../fidelity/verify/index.js';

/** Starts the emulator in-process (src/server/start.ts, loaded on the first call). */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  const { startEmulator: start } = await import('../server/start.js');
  return start(options);
}
