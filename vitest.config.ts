import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The cluster test runs on its own: `npm run test:cluster` (vitest.cluster.config.ts).
const EXCLUDED = ['test/cluster/**', '**/node_modules/**'];
/** The files that replace one of the service's modules for themselves (vi.mock). */
const REPLACING_MODULES = ['test/extensions.test.ts'];

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
    // Each test file gets its own SQLite file and PostgreSQL database, so files run in parallel:
    // two at a time, also on a machine of two cores, where Vitest's default is one (the files
    // wait on databases, servers and child processes as much as on the CPU: 1,460 s -> 861 s).
    // More would pass PostgreSQL's default 100 connections: a file holds up to about 40 (an
    // app's pool of 10, and a connection per app for each channel it listens on).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // A worker keeps the modules it imported from one file to the next (isolate: false): the
      // service's modules (the schema built from the registry, the OpenAPI document, Prisma's
      // client) are loaded once per worker instead of once per file, 1.5 s of CPU each time
      // (the suite on two cores: 814 s -> 612 s). Each file still makes its own databases and
      // apps; what a module keeps (caches keyed by schema or text) is the same for every file.
      // The build and the databases' check (global set-up) run once, here.
      {
        extends: true,
        test: {
          name: 'shared',
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [...EXCLUDED, ...REPLACING_MODULES],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      // A file that replaces a module (vi.mock) gets modules of its own (it needs neither the build nor a database).
      { extends: true, test: { name: 'isolated', include: REPLACING_MODULES } },
    ],
  },
});
