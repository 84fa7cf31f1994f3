/**
 * `where` on products, suppliers and product structure items, as properties on both databases:
 * random condition trees (every kind of scalar with values drawn from the demo data and beside
 * them, localized text by fragments of real names in other cases, nulls, to-one relationships
 * with isNull, to-many some/every/none, AND/OR/NOT, 1 to 4 levels deep), sent as variables; the
 * page (`first: 100`, id order), `totalCount` and `aggregate` must be what the same condition
 * gives over every row read plainly (test/support/where-model.ts), decimals compared exactly.
 *
 * Reproduce a failure with the seed (and path) fast-check prints: WHERE_SEED=<seed> [WHERE_PATH=<path>].
 * WHERE_RUNS changes the number of cases per list (150).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import {
  Decimal,
  expectedAggregate,
  type FieldSpec,
  type ScalarKind,
  SPECS,
  type Value,
  type Where,
  WhereModel,
} from '../support/where-model.ts';

const RUNS = Number(process.env.WHERE_RUNS ?? 150);
const SEED = process.env.WHERE_SEED === undefined ? undefined : Number(process.env.WHERE_SEED);
const PATH = process.env.WHERE_PATH;

/** Observed values of a type's scalar (`field`, or `field.sub` inside a small object; all languages of localized text). */
type Pools = Map<string, Value[]>;

function pools(model: WhereModel, type: string): Pools {
  const out: Pools = new Map();
  const add = (key: string, v: unknown) => {
    if (v !== null) out.set(key, [...(out.get(key) ?? []), v as Value]);
  };
  for (const row of model.rows[type]!) {
    for (const [field, spec] of Object.entries(SPECS[type]!.scalars)) {
      const v = row.values[field]!;
      if (spec[0] === 'localized' || spec[0] === 'object') {
        for (const [k, x] of Object.entries(v as Record<string, Value>))
          add(spec[0] === 'object' ? `${field}.${k}` : field, x);
      } else add(field, v);
    }
  }
  // Distinct values, a few hundred at most: the arbitraries draw from them.
  for (const [k, list] of out) {
    const distinct = [...new Map(list.map((v) => [String(v), v])).values()];
    out.set(
      k,
      distinct.filter((_, i) => i % Math.ceil(distinct.length / 300) === 0),
    );
  }
  return out;
}

const MS = [0, 0, 0, 1, -1, 60_000, -60_000, 86_400_000, -86_400_000];
const DAY_ZERO = Date.parse('2025-01-01T00:00:00Z');

/** An operand for a scalar: one seen in the data, or beside one (for text operators: a piece of one). */
function operand(kind: ScalarKind, pool: Value[], text = false): fc.Arbitrary<unknown> {
  const seen = <T>(fallback: T) => (pool.length ? fc.constantFrom(...(pool as T[])) : fc.constant(fallback));
  switch (kind) {
    case 'int':
      return fc.oneof(
        seen(1),
        fc.tuple(seen(1), fc.integer({ min: -2, max: 2 })).map(([v, d]) => v + d),
      );
    case 'decimal': {
      const near = fc
        .tuple(seen(new Decimal(1)), fc.constantFrom('0.0001', '-0.0001', '1', '-1', '0.00001'))
        .map(([v, d]) => v.plus(d));
      return fc
        .oneof(seen(new Decimal(1)), near, fc.constantFrom(new Decimal(0), new Decimal('-1.5')))
        .map((d) => d.toNumber());
    }
    case 'datetime':
      return fc
        .tuple(seen(DAY_ZERO), fc.constantFrom(...MS), fc.boolean())
        .map(([ms, d, zone]) =>
          zone ? new Date(ms + d).toISOString() : new Date(ms + d + 3_600_000).toISOString().replace('Z', '+01:00'),
        );
    case 'boolean':
      return fc.boolean();
    default:
      return fc.oneof(
        { weight: text ? 1 : 6, arbitrary: seen('x') },
        { weight: text ? 6 : 1, arbitrary: fragment(pool.length ? (pool as string[]) : ['x']) },
        { weight: 1, arbitrary: fc.constantFrom('', '%', '_', "'", 'é', 'É', 'ß', 'œ', 'SS') },
      );
  }
}

/** A piece of a real text, as it is, upper- or lowercase. */
const fragment = (texts: string[]) =>
  fc
    .tuple(fc.constantFrom(...texts), fc.nat(), fc.integer({ min: 1, max: 6 }), fc.constantFrom('as', 'upper', 'lower'))
    .map(([s, start, length, c]) => {
      const i = s.length ? start % s.length : 0;
      const f = s.slice(i, i + length);
      return c === 'upper' ? f.toUpperCase() : c === 'lower' ? f.toLowerCase() : f;
    });

const OPERATORS: Record<ScalarKind, string[]> = {
  int: ['equals', 'not', 'in', 'notIn', 'isNull', 'lt', 'lte', 'gt', 'gte'],
  decimal: ['equals', 'not', 'in', 'notIn', 'isNull', 'lt', 'lte', 'gt', 'gte'],
  datetime: ['equals', 'not', 'in', 'notIn', 'isNull', 'lt', 'lte', 'gt', 'gte'],
  string: ['equals', 'not', 'in', 'notIn', 'isNull', 'contains', 'contains', 'startsWith', 'endsWith'],
  boolean: ['equals', 'not', 'isNull'],
};

/** One to `max` entries of distinct keys. */
const uniqueEntries = <T extends readonly [string, unknown]>(entry: fc.Arbitrary<T>, max: number) =>
  fc.uniqueArray(entry, { minLength: 1, maxLength: max, selector: ([k]) => k });

/** A `<Scalar>Where` of one operator, or two. */
function scalarWhere(kind: ScalarKind, pool: Value[]): fc.Arbitrary<Record<string, unknown>> {
  const entry = fc
    .constantFrom(...OPERATORS[kind])
    .chain((op) =>
      (op === 'isNull'
        ? fc.boolean()
        : op === 'in' || op === 'notIn'
          ? fc.array(operand(kind, pool), { maxLength: 4 })
          : operand(kind, pool, op === 'contains' || op === 'startsWith' || op === 'endsWith')
      ).map((v) => [op, v] as const),
    );
  return fc
    .oneof({ weight: 3, arbitrary: entry.map((e) => [e]) }, uniqueEntries(entry, 2))
    .map((entries) => Object.fromEntries(entries));
}

function fieldWhere(field: string, spec: FieldSpec, p: Pools): fc.Arbitrary<Record<string, unknown>> {
  if (spec[0] === 'localized') {
    const entry = fc
      .constantFrom('any', 'any', 'nl', 'fr', 'en', 'de')
      .chain((lang) => scalarWhere('string', p.get(field) ?? []).map((w) => [lang, w] as const));
    return uniqueEntries(entry, 2).map((entries) => Object.fromEntries(entries));
  }
  if (spec[0] === 'object') {
    const entry = fc
      .constantFrom(...Object.entries(spec[1]))
      .chain(([sub, [kind]]) => scalarWhere(kind, p.get(`${field}.${sub}`) ?? []).map((w) => [sub, w] as const));
    return uniqueEntries(entry, 2).map((entries) => Object.fromEntries(entries));
  }
  return scalarWhere(spec[0], p.get(field) ?? []);
}

/** Random `<Type>Where` trees over the model's types, at most `depth` levels of nesting. */
function whereArbitraries(model: WhereModel) {
  const typePools = new Map(Object.keys(SPECS).map((t) => [t, pools(model, t)]));
  const memo = new Map<string, fc.Arbitrary<Where>>();

  function clause(type: string, depth: number): fc.Arbitrary<readonly [string, unknown]> {
    const spec = SPECS[type]!;
    const scalar = fc
      .constantFrom(...Object.entries(spec.scalars))
      .chain(([f, s]) => fieldWhere(f, s, typePools.get(type)!).map((w) => [f, w] as const));
    if (depth <= 1) return scalar;
    const inner = (t: string) => where(t, depth - 1);
    const options: fc.WeightedArbitrary<readonly [string, unknown]>[] = [
      { weight: 5, arbitrary: scalar },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom('AND', 'OR', 'NOT')
          .chain((op) =>
            (op === 'NOT' ? inner(type) : fc.array(inner(type), { maxLength: 3 })).map((w) => [op, w] as const),
          ),
      },
    ];
    const toOne = Object.entries(spec.toOne);
    if (toOne.length) {
      const relation = fc.constantFrom(...toOne).chain(([name, rel]) =>
        fc
          .oneof(
            fc.boolean().map((isNull) => ({ isNull })),
            inner(rel.target),
            inner(rel.target).map((w) => ({ ...w, isNull: false })),
          )
          .map((w) => [name, w] as const),
      );
      options.push({ weight: 2, arbitrary: relation });
    }
    const toMany = Object.entries(spec.toMany);
    if (toMany.length) {
      const relation = fc
        .tuple(fc.constantFrom(...toMany), fc.constantFrom('some', 'every', 'none'))
        .chain(([[name, rel], q]) =>
          fc.oneof(inner(rel.target), fc.constant({})).map((w) => [name, { [q]: w }] as const),
        );
      options.push({ weight: 2, arbitrary: relation });
    }
    return fc.oneof(...options);
  }

  function where(type: string, depth: number): fc.Arbitrary<Where> {
    const key = `${type}/${depth}`;
    let arb = memo.get(key);
    if (!arb) {
      const entry = clause(type, depth);
      arb = fc
        .oneof({ weight: 3, arbitrary: entry.map((e) => [e]) }, uniqueEntries(entry, 3))
        .map((entries) => Object.fromEntries(entries) as Where);
      memo.set(key, arb);
    }
    return arb;
  }

  return (type: string) => fc.integer({ min: 1, max: 4 }).chain((depth) => where(type, depth));
}

interface ListCase {
  type: string;
  field: string;
  decimals: string[];
  dates: string[];
}

const LISTS: ListCase[] = [
  {
    type: 'Product',
    field: 'products',
    decimals: ['nlc', 'consumerPrice', 'grossWeightInKilogram'],
    dates: ['modifiedDate'],
  },
  { type: 'Supplier', field: 'suppliers', decimals: [], dates: ['modifiedDate'] },
  {
    type: 'ProductStructureItem',
    field: 'productStructureItems',
    decimals: ['netQuantity', 'grossQuantity', 'lossPercentage'],
    dates: ['modifiedDate'],
  },
];

function query(c: ListCase): string {
  const numeric = c.decimals.join(' ');
  const ordered = [...c.decimals, ...c.dates].join(' ');
  const sums = numeric ? `sum { ${numeric} } avg { ${numeric} }` : '';
  return `query($where: ${c.type}Where) { ${c.field}(first: 100, where: $where) {
    totalCount nodes { id } aggregate { count ${sums} min { ${ordered} } max { ${ordered} } } } }`;
}

/** The service's aggregate in the model's terms: decimals as decimal.js strings, dates as ISO strings. */
function actualAggregate(c: ListCase, agg: any, expected: ReturnType<typeof expectedAggregate>) {
  const dec = (v: unknown) => (v === null || v === undefined ? v : new Decimal(String(v)).toString());
  const date = (v: unknown) => (typeof v === 'string' ? new Date(v).toISOString() : v);
  const pick = (group: Record<string, unknown> | undefined, fields: string[], f: (v: unknown) => unknown) =>
    Object.fromEntries(fields.map((k) => [k, f(group?.[k])]));
  const avg = pick(agg.avg, c.decimals, dec);
  // Either rounding of a tie at the 16th digit is taken: the model holds both.
  for (const k of c.decimals) {
    const both = expected.avg[k];
    avg[k] = both && (avg[k] === both[0] || avg[k] === both[1]) ? both : avg[k];
  }
  return {
    count: agg.count,
    sum: pick(agg.sum, c.decimals, dec),
    avg,
    min: { ...pick(agg.min, c.decimals, dec), ...pick(agg.min, c.dates, date) },
    max: { ...pick(agg.max, c.decimals, dec), ...pick(agg.max, c.dates, date) },
  };
}

describe.each(providers)('where on %s: the answer is the model’s', (provider) => {
  let env: GraphQLTestEnv;
  let model: WhereModel;
  let arbitrary: (type: string) => fc.Arbitrary<Where>;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    model = await WhereModel.load(env.database.db.prisma);
    arbitrary = whereArbitraries(model);
    await env.gql('{ __typename }');
  });
  afterAll(async () => env?.database.cleanup());

  it.each(LISTS)(
    '$field',
    async (c) => {
      const text = query(c);
      await fc.assert(
        fc.asyncProperty(arbitrary(c.type), async (where) => {
          const rows = model.filter(c.type, where);
          const expected = expectedAggregate(rows, c.decimals, c.dates);
          const res = await env.gql(text, { where });
          expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
          const connection = res.body.data![c.field];
          expect(
            connection.nodes.map((n: { id: number }) => n.id),
            'the page',
          ).toEqual(rows.slice(0, 100).map((r) => r.id));
          expect(connection.totalCount, 'totalCount').toBe(rows.length);
          expect(actualAggregate(c, connection.aggregate, expected), 'aggregate').toEqual(expected);
        }),
        { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: true },
      );
    },
    120_000,
  );

  it('nested lists: a reverse link and a to-many field filter each parent’s own rows', async () => {
    const text = `query($products: ProductWhere, $items: ProductStructureItemWhere) {
      suppliers(first: 50) { nodes { id products(first: 30, where: $products) { totalCount aggregate { count } nodes { id } } } }
      productStructures(first: 50) { nodes { id items(where: $items) { id } } } }`;
    // Pages within the cost limit: a condition through a relationship costs once per row of its
    // page, a to-many one ten times more (docs/reference/graphql.md, "Limits").
    const supplierProducts = SPECS.Supplier!.toMany.products!;
    const structureItems = SPECS.ProductStructure!.toMany.items!;
    await fc.assert(
      fc.asyncProperty(arbitrary('Product'), arbitrary('ProductStructureItem'), async (products, items) => {
        const res = await env.gql(text, { products, items });
        expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
        const expected = model.rows.Supplier!.slice(0, 50).map((s) => {
          const kept = model.toMany(supplierProducts, s).filter((p) => model.matches('Product', products, p));
          return { id: s.id, total: kept.length, count: kept.length, page: kept.slice(0, 30).map((p) => p.id) };
        });
        const actual = res.body.data!.suppliers.nodes.map((s: any) => ({
          id: s.id,
          total: s.products.totalCount,
          count: s.products.aggregate.count,
          page: s.products.nodes.map((p: { id: number }) => p.id),
        }));
        expect(actual, 'suppliers’ products').toEqual(expected);
        const expectedItems = model.rows.ProductStructure!.slice(0, 50).map((s) => ({
          id: s.id,
          items: model
            .toMany(structureItems, s)
            .filter((i) => model.matches('ProductStructureItem', items, i))
            .map((i) => i.id),
        }));
        const actualItems = res.body.data!.productStructures.nodes.map((s: any) => ({
          id: s.id,
          items: s.items.map((i: { id: number }) => i.id),
        }));
        expect(actualItems, 'structures’ items').toEqual(expectedItems);
      }),
      { numRuns: Math.ceil(RUNS / 3), seed: SEED, path: PATH, endOnFailure: true },
    );
  }, 120_000);

  it('the generated conditions are not all trivial: some keep nothing, some everything, most some', () => {
    const samples = fc.sample(arbitrary('Product'), { numRuns: 300, seed: 1 });
    const sizes = samples.map((w) => model.filter('Product', w).length);
    const all = model.rows.Product!.length;
    expect(sizes.filter((n) => n === 0).length).toBeGreaterThan(10);
    expect(sizes.filter((n) => n === all).length).toBeGreaterThan(10);
    expect(sizes.filter((n) => n > 0 && n < all).length).toBeGreaterThan(60);
  });
});
