/**
 * `npm run migrations:new -- <name>`: writes the migration from the models as last migrated
 * (prisma/migrated-models.prisma) to the models now (prisma/models.prisma), for each provider.
 *
 * `prisma migrate dev` cannot run here (it downloads an engine and wants a shadow database), so
 * the SQL comes from `prisma migrate diff` between two schema files. The snapshot is what makes
 * that possible; a test fails when models.prisma and the snapshot differ, i.e. when a model
 * change has no migration.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { providers, renderSchema } from './build-schemas.ts';

const { positionals } = parseArgs({ allowPositionals: true });
const name = positionals[0];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run migrations:new -- <name in snake_case>');
  process.exit(2);
}

const prismaDir = import.meta.dirname;
const snapshot = join(prismaDir, 'migrated-models.prisma');
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const scratch = mkdtempSync(join(tmpdir(), 'migration-'));
let wrote = false;

for (const provider of providers) {
  const from = ['--from-empty'];
  if (existsSync(snapshot)) {
    const previous = join(scratch, `${provider}.prisma`);
    writeFileSync(previous, renderSchema(provider, readFileSync(snapshot, 'utf8')));
    from.splice(0, 1, '--from-schema-datamodel', previous);
  }
  // The models as they are now, rendered here: a migration never depends on a `npm run generate` run before it.
  const current = join(scratch, `${provider}.current.prisma`);
  writeFileSync(current, renderSchema(provider));
  const sql = execFileSync(
    process.execPath,
    [
      join(prismaDir, '..', 'node_modules', 'prisma', 'build', 'index.js'),
      'migrate',
      'diff',
      '--config',
      join(prismaDir, `${provider}.config.ts`),
      ...from,
      '--to-schema-datamodel',
      current,
      '--script',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (!/^\s*[A-Z]/m.test(sql.replace(/^--.*$/gm, ''))) {
    console.log(`${provider}: no changes`);
    continue;
  }
  const dir = join(prismaDir, provider, 'migrations', `${stamp}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'migration.sql'), sql);
  console.log(`${provider}: wrote ${dir}/migration.sql`);
  wrote = true;
}
if (wrote) copyFileSync(join(prismaDir, 'models.prisma'), snapshot);
