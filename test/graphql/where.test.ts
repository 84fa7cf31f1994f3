/**
 * The query language as a client meets it (docs/reference/graphql.md "Asking questions"), on both providers:
 * the GraphiQL example, statement counts of where, search and aggregate, exact decimal
 * aggregates, filter values checked alike by both APIs, and the cost of conditions through
 * relationships. Random where trees against a model are in ./where-property.test.ts; bad input
 * in ./where-input.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import { GRAPHIQL_EXAMPLE } from '../../src/graphql/examples.ts';
import { PreparedOperation } from '../../src/graphql/prepared.ts';
import { schema } from '../../src/graphql/schema.ts';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';

describe.each(providers)('where, search and aggregate on %s', (provider) => {
  let env: GraphQLTestEnv;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    await env.gql('{ __typename }'); // the token is validated once, then trusted from memory
  });
  afterAll(async () => env?.database.cleanup());

  it("GraphiQL's FindProducts answers with rows and figures over the whole list", async () => {
    const res = await env.t.request('/graphql', {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: GRAPHIQL_EXAMPLE, operationName: 'FindProducts' }),
    });
    const { data, errors } = (await res.json()) as { data: any; errors?: unknown };
    expect(errors).toBeUndefined();
    const { totalCount, aggregate, nodes } = data.products;
    expect(nodes.length).toBeGreaterThan(0);
    expect(totalCount).toBeGreaterThanOrEqual(nodes.length);
    for (const node of nodes) {
      expect(node.consumerPrice).toBeGreaterThanOrEqual(2);
      expect(node.consumerPrice).toBeLessThanOrEqual(20);
    }
    expect(aggregate.min.consumerPrice).toBeGreaterThanOrEqual(2);
    expect(aggregate.max.consumerPrice).toBeLessThanOrEqual(20);
    expect(data.suppliers.nodes.length).toBeGreaterThan(0);
  });

  const W6 = `query($text: String!, $min: Decimal!, $max: Decimal!, $group: Int!) {
    products(first: 20, where: {
      name: { any: { contains: $text } }
      consumerPrice: { gte: $min, lte: $max }
      productStructure: { items: { some: { product: { productGroup: { id: { equals: $group } } } } } }
    }) {
      totalCount
      aggregate { count sum { consumerPrice } min { consumerPrice } max { consumerPrice } }
      nodes { id consumerPrice productStructure { items(where: { product: { productGroup: { id: { equals: $group } } } }) { id } } }
    }
  }`;

  it('a where through three relationships, its totals and a filtered nested list: one statement per level, page and aggregate', async () => {
    const { body, statements } = await env.gql(W6, { text: 'BROOD', min: 0, max: 1000, group: 7 });
    expect(body.errors).toBeUndefined();
    const { totalCount, aggregate, nodes } = body.data!.products;
    expect(nodes.length).toBeGreaterThan(0);
    expect(aggregate.count).toBe(totalCount);
    for (const node of nodes) expect(node.productStructure.items.length).toBeGreaterThan(0);
    // the page with the count and aggregates; structures; their items filtered
    expect(statements).toBe(3);
  });

  it('a search, or a where, costs what a list costs: its page, count and aggregates in one statement', async () => {
    const list = await env.gql('{ products(first: 5) { totalCount aggregate { count } nodes { id } } }');
    const search = await env.gql(
      '{ products(first: 5, search: "brood") { totalCount aggregate { count } nodes { id } } }',
    );
    const where = await env.gql(
      '{ products(first: 5, where: { isActive: { equals: true } }) { totalCount aggregate { count } nodes { id } } }',
    );
    expect(search.body.errors).toBeUndefined();
    expect(search.body.data!.products.nodes.length).toBe(5);
    expect(search.body.data!.products.totalCount).toBe(search.body.data!.products.aggregate.count);
    // Without a where or a search, the page and the count are apart (a count by index and a page
    // cut early by LIMIT cost less than collecting the whole list first).
    expect(list.statements).toBe(2);
    expect(search.statements).toBe(1);
    expect(where.statements).toBe(1);
  });

  it('sums decimals exactly, over every page', async () => {
    // 0.1 + 0.2 is 0.30000000000000004 in doubles: written as decimals, they must sum to 0.3.
    const ids = (
      await env.gql('{ products(first: 3, orderBy: [ID_DESC]) { nodes { id } } }')
    ).body.data!.products.nodes.map((n: { id: number }) => n.id);
    for (const [i, price] of ['0.1', '0.2', '1.005'].entries()) {
      const res = await env.gql(
        'mutation($id: Int!, $p: Decimal!) { updateProduct(id: $id, input: { consumerPrice: $p }) { id } }',
        {
          id: ids[i],
          p: price,
        },
      );
      expect(res.body.errors).toBeUndefined();
    }
    const { body } = await env.gql(
      `query($ids: [Int!]) { products(first: 1, where: { id: { in: $ids } }) {
        aggregate { count sum { consumerPrice } avg { consumerPrice } min { consumerPrice } max { consumerPrice } } } }`,
      { ids },
    );
    expect(body.data!.products.aggregate).toEqual({
      count: 3,
      sum: { consumerPrice: 1.305 },
      avg: { consumerPrice: 0.435 },
      min: { consumerPrice: 0.1 },
      max: { consumerPrice: 1.005 },
    });
  });

  it('a filter value is checked alike by both APIs: a GTIN of letters is refused by REST and by GraphQL', async () => {
    const rest = await env.t.request('/products?gtin=abc', { headers: { Authorization: `Bearer ${env.token}` } });
    expect(rest.status).toBe(400);
    const restMessage = JSON.stringify(await rest.json());
    const graphql = await env.gql('{ products(filter: { gtin: "abc" }) { totalCount } }');
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(graphql.statements).toBe(0);
    expect(restMessage).toContain('must be a GTIN: 1 to 14 digits (got \\"abc\\")');
    expect(graphql.body.errors?.[0]?.message).toContain('must be a GTIN: 1 to 14 digits (got "abc")');
  });

  it('compares date-times in a list as the instants they are, whatever the time zone of the process', async () => {
    const { nodes } = (await env.gql('{ products(first: 2) { nodes { id modifiedDate } } }')).body.data!.products;
    const instants = nodes.map((n: { modifiedDate: string }) => n.modifiedDate);
    const zone = process.env.TZ;
    process.env.TZ = 'Europe/Brussels'; // node-postgres wrote dates inside arrays in local time
    try {
      const query = `query($d: [DateTime!]) { products(first: 100, where: { modifiedDate: { in: $d } }) { nodes { id } }
        others: products(first: 1, where: { modifiedDate: { notIn: $d } }) { totalCount } }`;
      const { body } = await env.gql(query, { d: instants });
      const all = (await env.gql('{ products { totalCount } }')).body.data!.products.totalCount;
      const found = body.data!.products.nodes.map((n: { id: number }) => n.id);
      expect(found).toEqual(expect.arrayContaining(nodes.map((n: { id: number }) => n.id)));
      expect(body.data!.others.totalCount).toBe(all - found.length);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('bounds what a where may hold, values of in and objects included, before anything runs', async () => {
    // 600 values of in: past SQLite's parameters had they been allowed 500 conditions of 100 each.
    const ids = Array.from({ length: 100 }, (_, i) => i + 1);
    const many = await env.gql('query($w: ProductWhere) { products(where: $w) { totalCount } }', {
      w: { OR: Array.from({ length: 6 }, () => ({ id: { in: ids } })) },
    });
    expect(many.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(many.body.errors?.[0]?.message).toContain('the where holds more than 500 conditions');
    expect(many.statements).toBe(0);
    // Thousands of empty objects: refused before graphql-js walks them (216,000 took 3.8 s).
    const level = (inner: unknown) => ({ AND: Array.from({ length: 15 }, () => inner) });
    const empty = await env.gql('query($w: ProductWhere) { products(where: $w) { totalCount } }', {
      w: level(level(level({}))),
    });
    expect(empty.status).toBe(400);
    expect(empty.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(empty.body.errors?.[0]?.message).toBe(
      'variable $w holds more than 2000 objects (a ProductWhere takes at most 500 conditions)',
    );
    expect(empty.statements).toBe(0);
  });

  it('searches alike on both databases for characters that are numbers but not digits (½, ²)', async () => {
    const plain = await env.gql('{ products(search: "brood") { totalCount } }');
    const half = await env.gql('{ products(search: "brood ½ ²") { totalCount } }');
    expect(half.body.data!.products.totalCount).toBe(plain.body.data!.products.totalCount);
    expect(plain.body.data!.products.totalCount).toBeGreaterThan(0);
  });

  it('prices a condition through a relationship like a nested field, once per row of the page', async () => {
    // Each: a structure (1 +) whose items (10 x (1 +)) have a product (1 +) used in structures
    // (10 x 1): 121 a row, 12,100 for 100 rows; 20 of them are over the limit of 200,000.
    const deep = '{ productStructure: { items: { some: { product: { usedIn: { some: { id: { gt: 0 } } } } } } } }';
    const or = `[${Array.from({ length: 20 }, () => deep).join(', ')}]`;
    const many = await env.gql(`{ products(first: 100, where: { OR: ${or} }) { nodes { id } } }`);
    expect(many.body.errors?.[0]?.extensions?.code).toBe('QUERY_COMPLEXITY');
    expect(many.statements).toBe(0);
    const few = await env.gql(`{ products(first: 100, where: ${deep}) { nodes { id } } }`);
    expect(few.body.errors).toBeUndefined();
  });
});

describe('operations with a where variable', () => {
  const compiled = (text: string) => new PreparedOperation(schema, parse(text)).compiled(undefined) !== undefined;
  it('are run by graphql-js, not compiled by graphql-jit (which unrolled a recursive input type for 5 to 30 s)', () => {
    expect(compiled('query($w: ProductWhere) { products(where: $w) { totalCount } }')).toBe(false);
    expect(compiled('query($w: [SupplierWhere!]!) { suppliers { totalCount } }')).toBe(false);
    expect(compiled('query($w: StringWhere) { products { totalCount } }')).toBe(true);
    expect(compiled('query($f: ProductFilter, $n: Int) { products(first: $n, filter: $f) { totalCount } }')).toBe(true);
  });
});
