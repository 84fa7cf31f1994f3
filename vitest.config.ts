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
    // Each test file gets its own SQLite file and PostgreSQL database, so files run in parallel:
    // two at a time, also on a machine of two cores, where Vitest's default is one (the files
    // wait on databases, servers and child processes as much as on the CPU: 1,460 s -> 861 s).
    // More would pass PostgreSQL's default 100 connections: a file holds up to about 40 (an
    // app's pool of 10, and a connection per app for each channel it listens on).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
