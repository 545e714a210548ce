import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real emulators and receivers; give them room on a 2-core machine.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
