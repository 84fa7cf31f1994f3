/**
 * Seed integrity on each provider: every type has demo data, every foreign key resolves, bills
 * of material are acyclic and multi-level, decimals are exact, and the generator is deterministic.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '@prisma/client/runtime/client';
import type { Database } from '../src/db/client.ts';
import { resources, resourceByType } from '../src/resources/registry.ts';
import { generateSeed } from '../src/seed/generate.ts';
import { SeedRefusedError, seedDatabase } from '../src/seed/write.ts';
import { migratedDatabase, providers, type MigratedDatabase } from './support/databases.ts';

describe('seed generator', () => {
  it('is deterministic: the same scale and seed give the same rows, another seed others', () => {
    expect(generateSeed(1, 7)).toEqual(generateSeed(1, 7));
    expect(generateSeed(1, 8)).not.toEqual(generateSeed(1, 7));
  });

  it('scales linearly', () => {
    const count = (scale: number, model: string) => generateSeed(scale).find((t) => t.model === model)!.rows.length;
    expect(count(2, 'customer')).toBe(1000);
    expect(count(2, 'product')).toBe(1000);
    expect(count(2, 'productStructure')).toBe(500);
    expect(count(2, 'supplier')).toBe(100);
  });
});

type DataModel = Record<string, { dbName: string; fields: { name: string }[] }>;

describe.each(providers)('seeded %s database', (provider) => {
  let database: MigratedDatabase;
  let db: Database;
  const count = async (sql: string) => Number((await db.prisma.$queryRawUnsafe<{ n: unknown }[]>(sql))[0]!.n);

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    db = database.db;
    await seedDatabase(db, { scale: 1 });
  });
  afterAll(async () => database?.cleanup());

  it('holds demo data of every resource type at scale 1', async () => {
    for (const resource of resources)
      expect(await count(`SELECT COUNT(*) AS n FROM "${resource.type}"`), resource.type).toBeGreaterThan(0);
    expect(await db.prisma.customer.count()).toBe(500);
    expect(await db.prisma.product.count()).toBe(500);
    expect(await db.prisma.productStructure.count()).toBe(250);
    expect(await db.prisma.supplier.count()).toBe(50);
    const items = await db.prisma.productStructureItem.count();
    expect(items).toBeGreaterThan(2000);
    expect(items).toBeLessThan(3000);
  });

  it('resolves every foreign key of every relationship', async () => {
    const models = (db.prisma as unknown as { _runtimeDataModel: { models: DataModel } })._runtimeDataModel.models;
    const table = (delegate: string) =>
      Object.entries(models).find(([name]) => name[0]!.toLowerCase() + name.slice(1) === delegate)![1].dbName;
    const dangling = (from: string, column: string, to: string) =>
      count(
        `SELECT COUNT(*) AS n FROM "${from}" x LEFT JOIN "${to}" y ON x."${column}" = y.id WHERE x."${column}" IS NOT NULL AND y.id IS NULL`,
      );
    let checked = 0;
    for (const resource of resources) {
      for (const [name, relationship] of Object.entries(resource.relationships)) {
        const storage = relationship.storage;
        const target = resourceByType(relationship.target)!.type;
        if (storage.kind === 'foreignKey') {
          expect(await dangling(resource.type, storage.column, target), `${resource.type}.${name}`).toBe(0);
        } else if (storage.kind === 'join') {
          const join = table(storage.joinModel);
          expect(await dangling(join, storage.ownColumn, resource.type), `${join}.${storage.ownColumn}`).toBe(0);
          expect(await dangling(join, storage.targetColumn, target), `${join}.${storage.targetColumn}`).toBe(0);
        } else {
          expect(await dangling(target, storage.targetColumn, resource.type), `${target}.${storage.targetColumn}`).toBe(
            0,
          );
        }
        checked++;
      }
    }
    expect(checked).toBe(resources.reduce((n, r) => n + Object.keys(r.relationships).length, 0));
  });

  it('has acyclic, multi-level bills of material whose items all exist', async () => {
    const structures = await db.prisma.productStructure.findMany({
      select: { product_id: true, items: { select: { product_id: true } } },
    });
    expect(structures.every((s) => s.items.length > 0)).toBe(true);
    const components = new Map(structures.map((s) => [s.product_id, s.items.map((i) => i.product_id)]));
    const depth = new Map<number, number>();
    const visiting = new Set<number>();
    const levels = (product: number): number => {
      if (depth.has(product)) return depth.get(product)!;
      if (visiting.has(product)) throw new Error(`cycle through product ${product}`);
      visiting.add(product);
      const d = 1 + Math.max(0, ...(components.get(product) ?? []).map(levels));
      visiting.delete(product);
      depth.set(product, d);
      return d;
    };
    const deepest = Math.max(...[...components.keys()].map(levels));
    expect(deepest).toBeGreaterThanOrEqual(3);
  });

  it('computes gross quantities exactly as net x (1 + loss / 100)', async () => {
    const items = await db.prisma.productStructureItem.findMany({
      where: { gross_quantity: { not: null } },
      take: 500,
    });
    for (const item of items) {
      const expected = item.net_quantity!.times(item.loss_percentage!.plus(100)).div(100).toDecimalPlaces(6);
      expect(item.gross_quantity!.equals(expected), `item ${item.id}`).toBe(true);
    }
  });

  it('round-trips decimals exactly and maintains modified_date on every write', async () => {
    const before = await db.prisma.customer.findUniqueOrThrow({ where: { id: 1 } });
    await new Promise((r) => setTimeout(r, 5));
    for (const value of ['0.1', '0.3', '1234567.8901', '99999999.99']) {
      const after = await db.prisma.customer.update({
        where: { id: 1 },
        data: { credit_limit_used: new Decimal(value) },
      });
      expect(after.credit_limit_used!.toString()).toBe(value);
    }
    const after = await db.prisma.customer.findUniqueOrThrow({ where: { id: 1 } });
    expect(after.modified_date.getTime()).toBeGreaterThan(before.modified_date.getTime());
  });

  it('refuses to seed over existing data, and replaces it on request', async () => {
    await expect(seedDatabase(db, { scale: 1 })).rejects.toBeInstanceOf(SeedRefusedError);
    await seedDatabase(db, { scale: 1, seed: 2, replace: true });
    expect(await db.prisma.product.count()).toBe(500);
    const created = await db.prisma.unit.create({ data: { reference: 'box' } });
    expect(created.id).toBeGreaterThan(4); // id sequences moved past the seeded ids
  });
});
