/**
 * `npm run check-data` as an operator runs it, on both databases: the demo data breaks no rule;
 * rows written around the API (as an old import or a hand-made fix would) are each listed by
 * type, id and field, as text and as JSON, and make the exit code 1; `--types` narrows the check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../src/seed/write.ts';
import { migratedDatabase, type MigratedDatabase, providers } from './support/databases.ts';
import { runScript } from './support/process.ts';

describe.each(providers)('check-data on %s', (provider) => {
  let database: MigratedDatabase;
  const checkData = (...args: string[]) =>
    runScript('src/transfer/check-data-cli.ts', args, { DATABASE_URL: database.target.url });

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    await seedDatabase(database.db, { scale: 1 });
  });
  afterAll(() => database?.cleanup());

  it('finds nothing wrong in the demo data: exit code 0', async () => {
    const run = await checkData();
    expect(run.stdout, run.stderr).toBe('');
    expect(run.stderr).toMatch(/check-data: 0 problems in \d+ types\n/);
    expect(run.code).toBe(0);
  });

  it('lists each stored row that breaks a rule, naming type, id and field; exit code 1', async () => {
    const prisma = database.db.prisma as any;
    const [product] = await prisma.product.findMany({ orderBy: { id: 'asc' }, take: 1 });
    const [supplier] = await prisma.supplier.findMany({ orderBy: { id: 'asc' }, take: 1 });
    const [item] = await prisma.productStructureItem.findMany({ orderBy: { id: 'asc' }, take: 1 });
    await prisma.product.update({ where: { id: product.id }, data: { gtin: '4006381333932', consumer_price: -2 } });
    await prisma.supplier.update({ where: { id: supplier.id }, data: { email: 'sales(at)example.be', gln: '  ' } });
    await prisma.productStructureItem.update({ where: { id: item.id }, data: { loss_percentage: 150 } });

    const run = await checkData();
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout.trim().split('\n').sort()).toEqual(
      [
        `product_structure_items ${item.id} loss_percentage: must be from 0 to 100 (got 150)`,
        `products ${product.id} consumer_price: must not be negative (got -2)`,
        `products ${product.id} gtin: has a wrong GS1 check digit (the GTIN would end in 1) (got "4006381333932")`,
        `suppliers ${supplier.id} email: must be an e-mail address (got "sales(at)example.be")`,
        `suppliers ${supplier.id} gln: must be a GLN of 13 digits (got "  ")`,
      ].sort(),
    );
    expect(run.stderr).toMatch(/check-data: 5 problems in \d+ types\n/);
    const one = await checkData('--types', 'product_structure_items');
    expect(one.stderr).toMatch(/check-data: 1 problem in 1 type\n/);

    const json = await checkData('--json', '--types', 'suppliers');
    expect(json.code).toBe(1);
    // By id, then in the order of the type's attributes.
    expect(JSON.parse(json.stdout)).toEqual({
      problems: [
        { type: 'suppliers', id: supplier.id, field: 'gln', problem: 'must be a GLN of 13 digits (got "  ")' },
        {
          type: 'suppliers',
          id: supplier.id,
          field: 'email',
          problem: 'must be an e-mail address (got "sales(at)example.be")',
        },
      ],
    });
  });

  it('refuses an unknown type with exit code 2', async () => {
    const run = await checkData('--types', 'products,productz');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown type productz');
  });
});
