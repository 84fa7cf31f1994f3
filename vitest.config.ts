import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file gets its own SQLite file and PostgreSQL database, so files run in parallel.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
