/**
 * The in-memory evaluation of row filters (src/permissions/matches.ts) against the SQL they
 * compile to (src/query/compile.ts), on both databases: random products (text with case and
 * accents, nulls, decimals, date-times, foreign keys set and not) and random filters on the
 * row's own fields and to-one ids, with AND, OR and NOT nested. Each filter must keep the same
 * rows in memory as the database keeps; and the same again on rows taken through the change
 * log's forms and back (src/data/role-state.ts), which is how the change feed evaluates them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definition } from '../../src/data/columns.ts';
import { rowsByIds } from '../../src/data/load.ts';
import { RequestLoaders } from '../../src/data/request.ts';
import { applyFields, fieldsOf } from '../../src/data/role-state.ts';
import { Sql } from '../../src/db/sql.ts';
import { matches } from '../../src/permissions/matches.ts';
import { appendWhere } from '../../src/query/compile.ts';
import { ownRowOnly, parseWhere } from '../../src/query/where.ts';
import { seedDatabase } from '../../src/seed/write.ts';
import { type MigratedDatabase, migratedDatabase, providers } from '../support/databases.ts';
import { type Prng, prng } from '../support/prng.ts';

const SEED = Number(process.env.MATCHES_SEED ?? 20261201);
const ROWS = 80;
const FILTERS = 400;

const WORDS = ['Alpha', 'alpha', 'ALPHA beta', 'Éclair', 'éCLAIR', 'Straße', 'gamma', 'Gamma-Delta', 'a%b_c', ''];
const NEEDLES = ['alpha', 'ALP', 'ha', 'écl', 'ÉCL', 'air', 'straße', 'GAMMA', '%', '_c', 'a%b', 'x', ''];
const DECIMALS = [0, 1, 1.5, -2.25, 10, 12.345, 99.99, 100, 0.001, 123456.789];
const INTERVALS = ['days', 'weeks', 'Months', 'MONTHS'];
/** Whole seconds, as the log's forms carry date-times. */
const DATES = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', '2026-06-15T12:30:00Z', '2025-12-31T23:59:59Z'];
const OPERAND_DATES = [...DATES, '2026-01-01T00:00:00.500Z', '2026-01-01T01:00:00+01:00', '2026-03-01T00:00:00Z'];

/** A decimal as the service writes one: exactly (a JS number would reach PostgreSQL as the double it is). */
const decimal = (rng: Prng, values: readonly number[]) => String(rng.pick(values));

const maybe = <T>(rng: Prng, value: () => T, pNull = 0.25): T | null => (rng.chance(pNull) ? null : value());

interface Lookups {
  units: number[];
  brands: number[];
  groups: number[];
}

function randomProduct(rng: Prng, lookups: Lookups): Record<string, unknown> {
  return {
    is_active: rng.chance(0.5),
    is_sales: rng.chance(0.5),
    name_nl: maybe(rng, () => rng.pick(WORDS)),
    name_fr: maybe(rng, () => rng.pick(WORDS)),
    name_en: maybe(rng, () => rng.pick(WORDS)),
    name_de: maybe(rng, () => rng.pick(WORDS)),
    intrastat_code: maybe(rng, () => rng.pick(WORDS)),
    consumer_price: maybe(rng, () => decimal(rng, DECIMALS)),
    nlc: maybe(rng, () => decimal(rng, DECIMALS)),
    shelf_life_value: maybe(rng, () => decimal(rng, DECIMALS)),
    shelf_life_interval: maybe(rng, () => rng.pick(INTERVALS)),
    modified_date: new Date(rng.pick(DATES)),
    unit_id: rng.pick(lookups.units),
    brand_id: maybe(rng, () => rng.pick(lookups.brands)),
    product_group_id: maybe(rng, () => rng.pick(lookups.groups)),
  };
}

/** A random condition on one field of products, as a role file would write it. */
function randomField(rng: Prng, lookups: Lookups): Record<string, unknown> {
  const text = () => {
    const op = rng.pick(['equals', 'not', 'in', 'notIn', 'isNull', 'contains', 'startsWith', 'endsWith']);
    if (op === 'isNull') return { isNull: rng.chance(0.5) };
    if (op === 'in' || op === 'notIn') return { [op]: [rng.pick(WORDS), rng.pick(WORDS)] };
    return { [op]: op === 'equals' || op === 'not' ? rng.pick(WORDS) : rng.pick(NEEDLES) };
  };
  const ordered = (values: readonly unknown[]) => {
    const op = rng.pick(['equals', 'not', 'in', 'notIn', 'isNull', 'lt', 'lte', 'gt', 'gte']);
    if (op === 'isNull') return { isNull: rng.chance(0.5) };
    if (op === 'in' || op === 'notIn') return { [op]: [rng.pick(values), rng.pick(values)] };
    return { [op]: rng.pick(values) };
  };
  const link = (ids: number[]) => {
    const roll = rng.int(4);
    if (roll === 0) return { isNull: rng.chance(0.5) };
    if (roll === 1) return { id: { equals: rng.pick(ids) } };
    if (roll === 2) return { id: { in: [rng.pick(ids), rng.pick(ids)] } };
    return { id: { not: rng.pick(ids) } };
  };
  switch (rng.int(11)) {
    case 0:
      return { is_active: rng.chance(0.5) ? { equals: rng.chance(0.5) } : { not: rng.chance(0.5) } };
    case 1:
      return { is_sales: { equals: rng.chance(0.5) } };
    case 2:
      return { name: { [rng.pick(['any', 'nl', 'fr', 'en', 'de'])]: text() } };
    case 3:
      return { intrastat_code: text() };
    case 4:
      return { consumer_price: ordered([...DECIMALS, 5, 50]) };
    case 5:
      return { nlc: ordered(DECIMALS) };
    case 6:
      return { shelf_life: rng.chance(0.5) ? { value: ordered(DECIMALS) } : { interval: text() } };
    case 7:
      return { modified_date: ordered(OPERAND_DATES) };
    case 8:
      return { brand: link(lookups.brands) };
    case 9:
      return { product_group: rng.chance(0.5) ? link(lookups.groups) : { isNull: false, id: { gt: 2 } } };
    default:
      return { unit: link(lookups.units) };
  }
}

function randomWhere(rng: Prng, lookups: Lookups, depth = 0): Record<string, unknown> {
  const roll = depth > 2 ? 1 : rng.next();
  if (roll < 0.15) return { AND: [randomWhere(rng, lookups, depth + 1), randomWhere(rng, lookups, depth + 1)] };
  if (roll < 0.3) return { OR: Array.from({ length: rng.int(3) }, () => randomWhere(rng, lookups, depth + 1)) };
  if (roll < 0.45) return { NOT: randomWhere(rng, lookups, depth + 1) };
  return { ...randomField(rng, lookups), ...(rng.chance(0.3) ? randomField(rng, lookups) : {}) };
}

describe.each(providers)('row filters evaluated in memory, on %s', (provider) => {
  let database: MigratedDatabase;
  let ids: number[];
  let lookups: Lookups;

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    await seedDatabase(database.db, { scale: 1 });
    const prisma = database.db.prisma;
    const idsOf = async (model: string) =>
      ((await (prisma as any)[model].findMany({ select: { id: true } })) as { id: number }[]).map((r) => r.id);
    lookups = { units: await idsOf('unit'), brands: await idsOf('brand'), groups: await idsOf('productGroup') };
    ids = (await idsOf('product')).slice(0, ROWS);
    const rng = prng(SEED);
    for (const id of ids) await prisma.product.update({ where: { id }, data: randomProduct(rng, lookups) as never });
  });
  afterAll(() => database?.cleanup());

  it(`keeps the rows SQL keeps, for ${FILTERS} random filters (seed ${SEED})`, async () => {
    const db = database.db.primary;
    const resource = definition('products');
    const rows = (await rowsByIds(db, 'products', ids, RequestLoaders.columns('products'))).map((r) => r!);
    // The same rows through the log's forms and back: what the change feed evaluates.
    const throughForms = rows.map((row) => {
      const state = { id: row.id, version: row.version };
      applyFields(resource, state, fieldsOf(resource, row));
      return state;
    });
    const rng = prng(SEED + 1);
    let kept = 0;
    let total = 0;
    for (let i = 0; i < FILTERS; i++) {
      const input = randomWhere(rng, lookups);
      const where = parseWhere('products', input, 'where');
      expect(ownRowOnly(where)).toBe(true);
      const sql = new Sql(provider).text('SELECT t."id" FROM "products" t WHERE t."id"').in(ids).text(' AND ');
      appendWhere(sql, where, 't');
      const expected = new Set((await db.query<{ id: number }>(sql)).map((r) => Number(r.id)));
      const inMemory = new Set(rows.filter((row) => matches(where, row)).map((r) => r.id));
      const viaForms = new Set(throughForms.filter((row) => matches(where, row)).map((r) => r.id));
      const what = `filter ${i}: ${JSON.stringify(input)}`;
      expect([...inMemory].sort(), what).toEqual([...expected].sort());
      expect([...viaForms].sort(), what).toEqual([...expected].sort());
      kept += expected.size;
      total += ids.length;
    }
    // The filters are neither all-keeping nor all-dropping: the comparison says something.
    expect(kept / total).toBeGreaterThan(0.1);
    expect(kept / total).toBeLessThan(0.9);
  });

  it('refuses a condition through other rows', () => {
    const where = parseWhere('products', { product_group: { description: { any: { contains: 'x' } } } }, 'where');
    expect(() => matches(where, { id: 1 })).toThrow(/row filter must read the row alone/);
  });
});
