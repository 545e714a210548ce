import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite has its own config and command (npm run test:reliability).
    exclude: ['test/reliability/**', 'node_modules/**'],
    // Integration tests start real emulators and receivers; give them room on a 2-core machine.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
