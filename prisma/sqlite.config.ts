// Prisma CLI configuration for SQLite: the WebAssembly schema engine through the
// better-sqlite3 driver adapter, so that nothing is downloaded (see docs/development/data-model.md, "Changing the model").
import { defineConfig } from 'prisma/config';
import { sqliteMigrationAdapter } from '../src/db/migration-adapters.ts';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'sqlite/schema.prisma',
  migrations: { path: 'sqlite/migrations' },
  adapter: async () => sqliteMigrationAdapter(process.env.DATABASE_URL ?? 'file:./data/master-data.db'),
});
