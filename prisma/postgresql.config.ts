// Prisma CLI configuration for PostgreSQL: the WebAssembly schema engine through the pg driver
// adapter (with the catalog-type workaround in src/db/migration-adapters.ts).
import { defineConfig } from 'prisma/config';
import { postgresMigrationAdapter } from '../src/db/migration-adapters.ts';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'postgresql/schema.prisma',
  migrations: { path: 'postgresql/migrations' },
  adapter: async () =>
    postgresMigrationAdapter(process.env.DATABASE_URL ?? 'postgresql://postgres@localhost:5432/postgres'),
});
