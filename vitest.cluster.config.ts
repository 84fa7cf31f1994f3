import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster`: the cluster test alone (test/cluster/). The same module resolution and
 * global set-up (the compiled build) as vitest.config.ts; one file at a time.
 */
export default defineConfig({
  resolve: {
    alias: [
      { find: /^graphql$/, replacement: fileURLToPath(new URL('./node_modules/graphql/index.js', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/cluster/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
