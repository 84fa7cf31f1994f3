import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for the libraries (Pothos, Yoga, graphql-http); Vite
    // would give the tests and the sources the ES module build, a second copy whose classes the
    // first does not recognise. One copy, as in production.
    alias: [
      { find: /^graphql$/, replacement: fileURLToPath(new URL('./node_modules/graphql/index.js', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The cluster test runs on its own: `npm run test:cluster` (vitest.cluster.config.ts).
    exclude: ['test/cluster/**', '**/node_modules/**'],
    // Each test file gets its own SQLite file and PostgreSQL database, so files run in parallel.
    // (Two at a time on a machine of two cores, where Vitest's default is one, cut the suite from
    // 1,014 s to 684 s, but then exceeded PostgreSQL's 100 connections in the token tests' 50
    // parallel refreshes: kept at the default until the test apps' pools are smaller.)
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
