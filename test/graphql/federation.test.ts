/**
 * The service as a federation subgraph, in a real supergraph, on both databases: our subgraph
 * (a listening server over a seeded database) and a second one written here (orders whose lines
 * point at our products by id, served by Yoga) are composed with @theguild/federation-composition
 * from their `_service { sdl }`, and served by Hive Gateway's runtime, which forwards each
 * client's token. Through the gateway: nested data across both subgraphs; 500 order lines cost
 * one `_entities` request and one SQL statement per entity type of ours; a restricted client's
 * token sees only its rows and fields.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices, compositionHasErrors } from '@theguild/federation-composition';
import { buildSchema, parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { MAX_REPRESENTATIONS } from '../../src/graphql/federation.ts';
import { seedDatabase } from '../../src/seed/write.ts';
import { testApp } from '../support/app.ts';
import { migratedDatabase, type MigratedDatabase, providers } from '../support/databases.ts';
import { listen, type Listening } from '../support/live.ts';
import { getTokens } from '../support/oauth.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';

/** The orders subgraph's SDL: an Order's lines point at our products, by id. */
const ORDERS_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])

  type Query {
    orders: [Order!]!
  }

  type Order @key(fields: "id") {
    id: ID!
    lines: [OrderLine!]!
  }

  type OrderLine {
    quantity: Int!
    product: Product
  }

  type Product @key(fields: "id", resolvable: false) {
    id: Int!
  }
`;

/** What an executable schema of it needs besides: the federation's directives, `_service`. */
const ORDERS_EXECUTABLE = /* GraphQL */ `
  scalar link__Import
  scalar federation__FieldSet
  directive @link(url: String!, as: String, for: String, import: [link__Import]) repeatable on SCHEMA
  directive @key(fields: federation__FieldSet!, resolvable: Boolean = true) repeatable on OBJECT | INTERFACE
  type _Service { sdl: String! }
  ${ORDERS_SDL.replace('type Query {', 'type Query {\n    _service: _Service!')}
`;

/** A subgraph of orders over `productIds`: 5 orders, the lines spread over them, one per id. */
function ordersSubgraph(productIds: () => number[]) {
  const schema = buildSchema(ORDERS_EXECUTABLE);
  const query = schema.getQueryType()!.getFields();
  query._service!.resolve = () => ({ sdl: ORDERS_SDL });
  query.orders!.resolve = () => {
    const ids = productIds();
    return Array.from({ length: 5 }, (_, o) => ({
      id: `O${o + 1}`,
      lines: ids.filter((_, i) => i % 5 === o).map((id, i) => ({ quantity: i + 1, product: { id } })),
    }));
  };
  return createYoga({ schema, graphqlEndpoint: '/graphql', logging: false });
}

async function serve(handler: Parameters<typeof createServer>[1]): Promise<[Server, string]> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`];
}

async function sdlOf(url: string, token?: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ query: '{ _service { sdl } }' }),
  });
  const body = (await res.json()) as { data: { _service: { sdl: string } } };
  return body.data._service.sdl;
}

/**
 * A web shop that sees sales products, without their prices; and one that does not see their
 * GTINs either: a key of products, which a gateway fetches with every product.
 */
const ROLES = {
  shop: {
    products: { read: { fields: ['reference', 'gtin', 'name', 'unit'], where: { is_sales: { equals: true } } } },
    units: { read: {} },
  },
  no_gtin: { products: { read: { fields: ['reference', 'name'] } } },
};

describe.each(providers)('a federated graph with our subgraph on %s', (provider) => {
  let database: MigratedDatabase;
  let ours: Listening;
  let orders: Server;
  let gateway: ReturnType<typeof createGatewayRuntime>;
  let token: string;
  let shopToken: string;
  let noGtinToken: string;
  let productIds: number[] = [];
  const now = new Date();

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    await seedDatabase(database.db, { scale: 1 });
    await applyTestRoles(database.db, ROLES);
    // A clock that stands still: the tokens, validated once, are not read again between the
    // requests whose statements are counted.
    const t = testApp(database, {}, { clock: { now: () => now } });
    ours = await listen(t.app);
    token = (await getTokens(t, await createClient(database.db.prisma, 'gateway', ['read']))).access_token;
    shopToken = await tokenWithRole(t, database.db, 'shop', ['read']);
    noGtinToken = await tokenWithRole(t, database.db, 'no_gtin', ['read']);
    let url: string;
    [orders, url] = await serve(ordersSubgraph(() => productIds));
    const ourUrl = `${ours.baseUrl}/graphql`;
    const composed = composeServices([
      { name: 'master-data', url: ourUrl, typeDefs: parse(await sdlOf(ourUrl, token)) },
      { name: 'orders', url, typeDefs: parse(await sdlOf(url)) },
    ]);
    if (compositionHasErrors(composed)) throw new Error(composed.errors.map((e) => e.message).join('\n'));
    gateway = createGatewayRuntime({
      supergraph: composed.supergraphSdl,
      logging: false,
      maskedErrors: false,
      propagateHeaders: {
        fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }),
      },
    });
  }, 120_000);

  afterAll(async () => {
    await gateway?.dispose();
    orders?.close();
    await ours?.close();
    await database?.cleanup();
  });

  const through = async (query: string, as = token) => {
    const res = await gateway.fetch('http://gateway/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${as}` },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as { data?: any; errors?: { message: string; extensions?: any }[] };
  };

  /** Products by id, with what the tests compare. */
  const products = async (ids: number[]) => {
    const rows: { id: number; reference: string; is_sales: boolean; unit_id: number }[] =
      await database.db.prisma.product.findMany({
        where: { id: { in: ids } },
        select: { id: true, reference: true, is_sales: true, unit_id: true },
      });
    return new Map(rows.map((p) => [p.id, p]));
  };

  it('answers nested data across both subgraphs, ours found by the keys the other holds', async () => {
    productIds = (
      await database.db.prisma.product.findMany({ take: 10, orderBy: { id: 'asc' }, select: { id: true } })
    ).map((p: { id: number }) => p.id);
    const answer = await through('{ orders { id lines { quantity product { id reference unit { reference } } } } }');
    expect(answer.errors).toBeUndefined();
    const lines = answer.data.orders.flatMap((o: any) => o.lines);
    expect(lines).toHaveLength(10);
    const rows = await products(productIds);
    const units = new Map(
      (await database.db.prisma.unit.findMany()).map((u: { id: number; reference: string }) => [u.id, u.reference]),
    );
    for (const line of lines) {
      const row = rows.get(line.product.id)!;
      expect(line.product).toEqual({
        id: row.id,
        reference: row.reference,
        unit: { reference: units.get(row.unit_id) },
      });
    }
  });

  it('500 order lines: one _entities request, one statement per entity type of ours', async () => {
    productIds = (
      await database.db.prisma.product.findMany({ take: 500, orderBy: { id: 'asc' }, select: { id: true } })
    ).map((p: { id: number }) => p.id);
    expect(productIds).toHaveLength(500);
    const query = '{ orders { lines { product { id reference unit { reference } } } } }';
    // Once before: the token is validated, then trusted from memory.
    expect((await through(query)).errors).toBeUndefined();
    const before = database.db.statementCount;
    const answer = await through(query);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.orders.flatMap((o: any) => o.lines)).toHaveLength(500);
    // Products, then their units: one statement each.
    expect(database.db.statementCount - before).toBe(2);
  });

  it('representations beyond the limit are refused, naming it', async () => {
    const res = await fetch(`${ours.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { id } } }',
        variables: {
          r: Array.from({ length: MAX_REPRESENTATIONS + 1 }, (_, i) => ({ __typename: 'Product', id: i + 1 })),
        },
      }),
    });
    const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0]!.message).toMatch(
      new RegExp(`holds ${MAX_REPRESENTATIONS + 1} items: a list takes at most ${MAX_REPRESENTATIONS}`),
    );
  });

  it('a representation whose key is not a value of its type is refused, naming it; a number for a text key is taken as text', async () => {
    /** Our subgraph's answer to one representation, as a gateway would send it. */
    const entity = async (representation: unknown, as = token) => {
      const res = await fetch(`${ours.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${as}` },
        body: JSON.stringify({
          query: 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }',
          variables: { r: [representation] },
        }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { data: { _entities: unknown[] }; errors?: { message: string; extensions: any }[] };
    };
    const refused = async (representation: unknown, message: string, as = token) => {
      const answer = await entity(representation, as);
      expect(answer.data._entities).toEqual([null]);
      expect(answer.errors?.map((e) => [e.message, e.extensions.code, e.extensions.field])).toEqual([
        [message, 'BAD_USER_INPUT', 'representations'],
      ]);
    };
    // Ids beyond the database's integers (PostgreSQL answered them with a 500), or none at all.
    const range = 'a whole number from 1 to 2147483647';
    await refused({ __typename: 'Product', id: 9999999999 }, `the id of a Product is ${range} (got 9999999999)`);
    await refused({ __typename: 'Product', id: '9999999999' }, `the id of a Product is ${range} (got "9999999999")`);
    await refused({ __typename: 'Product', id: 0 }, `the id of a Product is ${range} (got 0)`);
    await refused({ __typename: 'Product', id: 'abc' }, `the id of a Product is ${range} (got "abc")`);
    // An integer key given text that is not one, or beyond the range.
    const integer = 'must be an integer from -2147483648 to 2147483647';
    await refused(
      { __typename: 'CustomerType', reference: 'abc' },
      `the reference of a CustomerType ${integer} (got "abc")`,
    );
    await refused(
      { __typename: 'CustomerType', reference: 99999999999 },
      `the reference of a CustomerType ${integer} (got 99999999999)`,
    );
    await refused(
      { __typename: 'Product', reference: { a: 1 } },
      'the reference of a Product must be text (got an object)',
    );
    // A key the role does not see is not named among the keys that find an entity.
    await refused({ __typename: 'Product', code: 'x' }, 'a Product is found by id or reference or gtin');
    await refused({ __typename: 'Product', code: 'x' }, 'a Product is found by id or reference', noGtinToken);
    // Digits for an integer key and a number for a text key are the values they read as.
    const type = await database.db.prisma.customerType.findFirstOrThrow({ select: { reference: true } });
    expect(await entity({ __typename: 'CustomerType', reference: String(type.reference) })).toEqual({
      data: { _entities: [{ __typename: 'CustomerType' }] },
    });
    expect(await entity({ __typename: 'Product', reference: 12345 })).toEqual({ data: { _entities: [null] } });
  });

  it("a restricted client's token through the gateway sees only its rows and fields", async () => {
    const some = async (sales: boolean) =>
      (await database.db.prisma.product.findMany({ where: { is_sales: sales }, take: 20, select: { id: true } })).map(
        (p: { id: number }) => p.id,
      );
    productIds = [...(await some(true)), ...(await some(false))];
    const rows = await products(productIds);
    const answer = await through('{ orders { lines { product { id reference } } } }', shopToken);
    const lines = answer.data.orders.flatMap((o: any) => o.lines);
    expect(lines).toHaveLength(40);
    const seen = lines
      .filter((l: any) => l.product !== null)
      .map((l: any) => l.product.id)
      .sort((a: number, b: number) => a - b);
    const sales = productIds.filter((id) => rows.get(id)!.is_sales).sort((a, b) => a - b);
    // Both kinds are among the products, and the shop sees the sales products only.
    expect(sales.length).toBeGreaterThan(0);
    expect(sales.length).toBeLessThan(40);
    expect(seen).toEqual(sales);
    // For a product it does not see, our subgraph answers null; the gateway says so for the
    // fields it expected (non-null in the supergraph), and leaves the line's product null.
    expect(answer.errors?.length).toBe(40 - sales.length);
    expect(new Set(answer.errors?.map((e) => e.message))).toEqual(
      new Set(['Cannot return null for non-nullable field Product.reference.']),
    );
    // A field its role does not see is refused by our subgraph, as if it did not exist.
    const hidden = await through('{ orders { lines { product { id consumerPrice } } } }', shopToken);
    expect(JSON.stringify(hidden.errors)).toMatch(/consumerPrice/);
    // Its own SDL has its fields and keys only.
    const sdl = await sdlOf(`${ours.baseUrl}/graphql`, shopToken);
    expect(sdl).toMatch(/type Product @key\(fields: "id"\) @key\(fields: "reference"\) @key\(fields: "gtin"\) \{/);
    expect(sdl).not.toMatch(/consumerPrice/);
  });

  it('a role that does not see a key of an entity has its fetches through the gateway refused (documented)', async () => {
    productIds = [(await database.db.prisma.product.findFirstOrThrow({ select: { id: true } })).id];
    // The gateway asks for every key of a product (gtin among them) with its fields.
    const answer = await through('{ orders { lines { product { id reference } } } }', noGtinToken);
    expect(answer.errors?.map((e) => e.message)).toEqual([
      expect.stringMatching(/Cannot query field "gtin" on type "Product"/),
    ]);
    const sdl = await sdlOf(`${ours.baseUrl}/graphql`, noGtinToken);
    expect(sdl).toMatch(/type Product @key\(fields: "id"\) @key\(fields: "reference"\) \{/);
  });
});
