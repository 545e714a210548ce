import { defineConfig } from 'vitest/config';

/** The reliability suite (`npm run test:reliability`): long, adversarial runs against real processes. */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    // Some of it spawns bin/svc.js (test/reliability/lib/dev-process.ts): build dist/ when src/ changed.
    globalSetup: ['./test/helpers/isolation-root.ts', './test/helpers/build-once.ts'],
    // Its own HOME, XDG folders, TMPDIR and working folder per test (test/helpers/isolation.ts).
    setupFiles: ['./test/helpers/isolation.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file at a time: each drives load against its own emulator and must not starve the others.
    fileParallelism: false,
  },
});
