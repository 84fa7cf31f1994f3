/**
 * Generated files that could drift from their source: the per-provider Prisma schemas, and the
 * models as last migrated (a model change without a migration fails here).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { providers, renderSchema, schemaPath } from '../prisma/build-schemas.ts';
import { migrationsDirectory } from '../src/db/migrate.ts';

const prismaFile = (name: string) => readFileSync(new URL(`../prisma/${name}`, import.meta.url), 'utf8');

describe('schema files', () => {
  it.each(providers)('prisma/%s/schema.prisma is up to date with prisma/models.prisma', (provider) => {
    expect(readFileSync(schemaPath(provider), 'utf8'), 'run `npm run generate`').toBe(renderSchema(provider));
  });

  it('every model change has a migration (models.prisma equals the snapshot of the last migration)', () => {
    expect(prismaFile('models.prisma'), 'run `npm run migrations:new -- <name>`').toBe(
      prismaFile('migrated-models.prisma'),
    );
  });

  it('both providers have the same migrations', () => {
    const names = (provider: (typeof providers)[number]) =>
      readdirSync(migrationsDirectory(provider), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    expect(names('postgresql')).toEqual(names('sqlite'));
    expect(names('sqlite').length).toBeGreaterThan(0);
  });
});
