/**
 * Bad `where` input on both databases (shared/design/query.md, "Bad input"): a value of the wrong
 * type, an unknown field, `in` with 10,000 values, a 10 KB `contains`, a `where` nested 60 deep, an
 * operator given null, `isNull` outside a to-one relationship: each is BAD_USER_INPUT whose message
 * names the path, answered without a single SQL statement. Coercion (the schema's types) refuses
 * before anything runs (400); the contract's own rules may refuse while the field runs (200, the
 * field null). And what a good `where` costs: the statements of a list without it (one for the
 * page, one for totalCount), and a nested list's `where` keeps statements bounded by depth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The path, as a whole: not followed by more of a path. */
const names = (path: string) => new RegExp(`${escapeRegExp(path)}(?![\\w.[])`);

/** `{ NOT: { NOT: ... leaf } }`, `depth` times. */
const nested = (depth: number, leaf: Record<string, unknown> = { id: { equals: 1 } }) => {
  let where = leaf;
  for (let i = 0; i < depth; i++) where = { NOT: where };
  return where;
};

/** `{ AND: [{ AND: [ ... leaf ] }] }`, `depth` times. */
const nestedAnd = (depth: number) => {
  let where: Record<string, unknown> = { reference: { startsWith: 'RM' } };
  for (let i = 0; i < depth; i++) where = { AND: [where] };
  return where;
};

/** Through relationships: product → structure → items some → product → ..., `rounds` times. */
const nestedRelationships = (rounds: number) => {
  let where: Record<string, unknown> = { isActive: { equals: true } };
  for (let i = 0; i < rounds; i++) where = { productStructure: { items: { some: { product: where } } } };
  return where;
};

interface Case {
  /** The `where` on products. */
  where: unknown;
  /**
   * The path the message names (exactly, or a prefix of it when `prefix`: nested too deep). A
   * variable nested past 32 levels meets the service's general guard on variables first, whose
   * message names the variable and the path (`variable $where is nested deeper than 32 levels, at
   * $where.NOT.NOT...`).
   */
  path: string;
  prefix?: boolean;
  /** A coercion error: refused before anything runs (400). */
  coercion?: boolean;
}

const CASES: [string, Case][] = [
  ['a string for an IntWhere', { where: { id: { equals: 'abc' } }, path: 'where.id.equals', coercion: true }],
  [
    'a number for contains',
    { where: { reference: { contains: 5 } }, path: 'where.reference.contains', coercion: true },
  ],
  [
    'a word as a DateTime',
    { where: { modifiedDate: { gt: 'yesterday' } }, path: 'where.modifiedDate.gt', coercion: true },
  ],
  // Text is exact (a number would be the double it stands for, read at 15 digits).
  [
    'a decimal of 17 digits as text',
    { where: { nlc: { gt: '1.2345678901234567' } }, path: 'where.nlc.gt', coercion: true },
  ],
  ['a string as a boolean', { where: { isActive: { equals: 'yes' } }, path: 'where.isActive.equals', coercion: true }],
  ['a list where an object goes', { where: { name: [1] }, path: 'where.name', coercion: true }],
  ['an unknown field', { where: { colour: { equals: 'red' } }, path: 'where.colour', coercion: true }],
  ['an unknown operator', { where: { id: { like: 1 } }, path: 'where.id.like', coercion: true }],
  ['a text operator on a number', { where: { id: { contains: '1' } }, path: 'where.id.contains', coercion: true }],
  ['an unknown language', { where: { name: { xx: { equals: 'a' } } }, path: 'where.name.xx', coercion: true }],
  [
    'an unknown field deep inside',
    { where: { OR: [{}, { unit: { colour: {} } }] }, path: 'where.OR[1].unit.colour', coercion: true },
  ],
  ['an unknown quantifier', { where: { usedIn: { any: {} } }, path: 'where.usedIn.any', coercion: true }],
  [
    'in with 10,000 values',
    { where: { id: { in: Array.from({ length: 10_000 }, (_, i) => i + 1) } }, path: 'where.id.in' },
  ],
  [
    'notIn with 101 values',
    { where: { reference: { notIn: Array.from({ length: 101 }, String) } }, path: 'where.reference.notIn' },
  ],
  ['a 10 KB contains', { where: { reference: { contains: 'x'.repeat(10_240) } }, path: 'where.reference.contains' }],
  ['a 1,001-character equals', { where: { gtin: { equals: 'x'.repeat(1001) } }, path: 'where.gtin.equals' }],
  [
    'a 10 KB string in a localized any, inside OR',
    {
      where: { OR: [{}, { name: { any: { startsWith: 'é'.repeat(10_240) } } }] },
      path: 'where.OR[1].name.any.startsWith',
    },
  ],
  ['NOT nested 60 deep', { where: nested(60), path: 'where.NOT', prefix: true }],
  ['AND nested 60 deep', { where: nestedAnd(60), path: 'where.AND[0]', prefix: true }],
  ['relationships nested 60 deep', { where: nestedRelationships(20), path: 'where.productStructure', prefix: true }],
  ['NOT nested 12 deep', { where: nested(12), path: 'where.NOT', prefix: true }],
  ['equals: null', { where: { reference: { equals: null } }, path: 'where.reference.equals' }],
  ['lt: null', { where: { nlc: { lt: null } }, path: 'where.nlc.lt' }],
  ['in: null', { where: { id: { in: null } }, path: 'where.id.in' }],
  [
    'contains: null deep inside',
    {
      where: { OR: [{ id: { equals: 1 } }, { name: { any: { contains: null } } }] },
      path: 'where.OR[1].name.any.contains',
    },
  ],
  [
    'null inside a to-many quantifier',
    { where: { usedIn: { some: { netQuantity: { gte: null } } } }, path: 'where.usedIn.some.netQuantity.gte' },
  ],
  ['isNull at the top', { where: { isNull: true }, path: 'where.isNull' }],
  ['isNull at the top inside AND', { where: { AND: [{ isNull: false }] }, path: 'where.AND[0].isNull' }],
  [
    'isNull in a to-many quantifier',
    { where: { usedIn: { some: { isNull: true } } }, path: 'where.usedIn.some.isNull' },
  ],
];

/** A GraphQL literal of a JSON value (object keys unquoted). */
const literal = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(literal).join(', ')}]`
    : v !== null && typeof v === 'object'
      ? `{ ${Object.entries(v)
          .map(([k, x]) => `${k}: ${literal(x)}`)
          .join(', ')} }`
      : JSON.stringify(v);

const VARIABLE = 'query($where: ProductWhere) { products(where: $where) { totalCount nodes { id } } }';

/**
 * Statements an operation costs, alone: a token is trusted from memory for a few seconds after it
 * is validated (VALIDATION_CACHE_MS), so a cheap operation first has it validated if need be.
 * Each document is sent once beforehand (with other values), for graphql-jit to compile it.
 */
async function measured(env: GraphQLTestEnv, query: string, variables?: Record<string, unknown>) {
  await env.gql('{ __typename }');
  return env.gql(query, variables);
}

describe.each(providers)('bad `where` on %s: BAD_USER_INPUT naming the path, no SQL', (provider) => {
  let env: GraphQLTestEnv;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    // Compiled once (graphql-jit) before anything is counted.
    await env.gql(VARIABLE, { where: { id: { equals: 1 } } });
  }, 120_000);
  afterAll(async () => env?.database.cleanup());

  const expectRefused = (res: Awaited<ReturnType<GraphQLTestEnv['gql']>>, c: Case) => {
    const error = res.body.errors?.[0];
    expect(error, JSON.stringify(res.body).slice(0, 2000)).toBeDefined();
    expect(error!.extensions?.code, error!.message).toBe('BAD_USER_INPUT');
    expect(error!.message.length, 'the message does not quote the whole input').toBeLessThan(2000);
    expect(error!.message).toMatch(
      c.prefix ? new RegExp(`${escapeRegExp(c.path)}|variable \\$where\\b`) : names(c.path),
    );
    expect(error!.message).not.toMatch(/invalid input|cannot represent|Expected/i);
    if (c.coercion) expect(res.status).toBe(400);
    if (res.status === 400) expect(res.body.data).toBeUndefined();
    else {
      expect(res.status).toBe(200);
      expect((res.body.data as any)?.products ?? null).toBeNull();
    }
    expect(res.statements, 'SQL statements').toBe(0);
  };

  describe('as a variable', () => {
    it.each(CASES)('%s', async (_name, c) => {
      expectRefused(await measured(env, VARIABLE, { where: c.where }), c);
    });
  });

  // Literals: the small ones (a 10,000-value literal meets the document's token limit first).
  const small = CASES.filter(([, c]) => literal(c.where).length < 2000);
  describe('as a literal', () => {
    it.each(small)('%s', async (_name, c) => {
      expectRefused(await measured(env, `{ products(where: ${literal(c.where)}) { totalCount nodes { id } } }`), c);
    });
  });

  it('a bad where on a nested list or a reverse link is refused naming its path too', async () => {
    for (const query of [
      `{ products(first: 5, where: { productStructure: { isNull: false } }) { nodes {
        productStructure { items(where: { netQuantity: { gt: null } }) { id } } } } }`,
      '{ products(first: 5, where: { usedIn: { some: {} } }) { nodes { usedIn(where: { isNull: true }) { nodes { id } } } } }',
      `{ suppliers(first: 5, where: { types: { some: {} } }) { nodes {
        types(where: { description: { any: { contains: null } } }) { id } } } }`,
    ]) {
      const res = await env.gql(query);
      const error = res.body.errors?.[0];
      expect(error, `${query}: ${JSON.stringify(res.body)}`).toBeDefined();
      expect(error!.extensions?.code, error!.message).toBe('BAD_USER_INPUT');
      expect(error!.message).toMatch(/where\.\w/);
    }
  });

  it('at the limits: 100 values in `in`, 1,000 characters, 8 levels of NOT are taken', async () => {
    for (const where of [
      { id: { in: Array.from({ length: 100 }, (_, i) => i + 1) } },
      { reference: { notIn: ['x'.repeat(1000)] } },
      nested(8),
      nestedRelationships(2),
    ]) {
      const res = await env.gql(VARIABLE, { where });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      expect(res.body.data!.products.totalCount).toBeGreaterThanOrEqual(0);
    }
  });
});

describe.each(providers)('what a `where` costs on %s', (provider) => {
  let env: GraphQLTestEnv;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
  });
  afterAll(async () => env?.database.cleanup());

  const lists: [string, string, Record<string, unknown>][] = [
    [
      'products',
      'ProductWhere',
      {
        name: { any: { contains: 'BROOD' } },
        productGroup: { description: { any: { contains: 'o' } }, isNull: false },
        OR: [
          { productStructure: { items: { some: { product: { reference: { startsWith: 'rm' } } } } } },
          {
            usedIn: { every: { netQuantity: { gt: 0 } } },
            preferredSupplier: { types: { none: { id: { equals: 1 } } } },
          },
        ],
      },
    ],
    [
      'suppliers',
      'SupplierWhere',
      { types: { some: { requestCertificates: { equals: true } } }, products: { none: { nlc: { gt: 5 } } } },
    ],
    [
      'productStructureItems',
      'ProductStructureItemWhere',
      {
        product: { productGroup: { isActive: { equals: true } } },
        productStructure: { product: { name: { en: { endsWith: 'LARGE' } } } },
        unit: { isNull: false },
      },
    ],
  ];

  it.each(lists)('%s: the statements of the list without where (page and totalCount)', async (field, type, where) => {
    const query = `query($where: ${type}) { ${field}(first: 50, where: $where) { totalCount nodes { id } } }`;
    await env.gql(query, { where: { id: { gt: 0 } } }); // compiled once (graphql-jit), not counted
    const without = await measured(env, query, {});
    const withWhere = await measured(env, query, { where });
    expect(without.body.errors).toBeUndefined();
    expect(withWhere.body.errors, JSON.stringify(withWhere.body.errors)).toBeUndefined();
    expect(withWhere.body.data![field].totalCount).toBeGreaterThan(0);
    expect(withWhere.body.data![field].totalCount).toBeLessThan(without.body.data![field].totalCount);
    // At most one for the page and one for totalCount (the data layer may read both in one), the
    // where adding none.
    expect(without.statements).toBeLessThanOrEqual(2);
    expect(withWhere.statements).toBeLessThanOrEqual(without.statements);
  });

  it('a nested list with where: statements bounded by depth, the same for 5, 50 and 100 products', async () => {
    const query = (itemWhere: string) => `query($first: Int) {
      products(first: $first, where: { productStructure: { isNull: false } }) { nodes { id productStructure {
        items${itemWhere} { id product { reference } }
      } } } }`;
    const filtered = query('(where: { netQuantity: { gt: 1 }, product: { reference: { startsWith: "RM" } } })');
    const counts: number[] = [];
    await env.gql(filtered, { first: 1 });
    for (const first of [5, 50, 100]) {
      const res = await measured(env, filtered, { first });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      const nodes = res.body.data!.products.nodes;
      expect(nodes).toHaveLength(first);
      const items = nodes.flatMap((p: any) => p.productStructure.items);
      expect(items.every((i: any) => i.product.reference.toLowerCase().startsWith('rm'))).toBe(true);
      counts.push(res.statements);
    }
    await env.gql(query(''), { first: 1 });
    const plain = await measured(env, query(''), { first: 100 });
    // products, structures, items, item products: as many as without the items' where
    expect(counts).toEqual([plain.statements, plain.statements, plain.statements]);
  });

  it('reverse links with where page per parent in one statement each', async () => {
    const query = (where: string) =>
      `{ products(first: 50) { nodes { id usedIn(first: 2${where}) { nodes { id } } customerProducts(first: 2${where}) { nodes { id } } } } }`;
    const without = await measured(env, query(''));
    const withWhere = await measured(env, query(', where: { id: { gt: 10 } }'));
    expect(withWhere.body.errors, JSON.stringify(withWhere.body.errors)).toBeUndefined();
    expect(withWhere.statements).toBe(without.statements);
  });
});
