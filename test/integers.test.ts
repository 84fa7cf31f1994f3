/**
 * Integers past what the databases store (32-bit ids, versions, change-log numbers) are refused
 * where they come in, naming where, with the same answer on both databases: never a 500
 * (PostgreSQL fails a statement with `out of range for type integer`) and never a plain "not
 * found" from one database and a 500 from the other. Every place an integer reaches SQL: path
 * ids, body ids (numbers and strings), an item's product, filter values, page numbers, the change
 * log's cursor and GraphQL's list cursors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../src/graphql/connections.ts';
import { providers } from './support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from './support/graphql.ts';

interface Case {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  /** The status both databases answer, and what the message names. */
  status: number;
  names: string;
}

const PAST = 2 ** 31;
const identifier = (type: string, id: unknown) => ({ data: { type, id } });

const REST_CASES: Case[] = [
  {
    name: 'a to-one relationship id in a body',
    method: 'PATCH',
    path: '/products/1',
    body: { data: { type: 'products', relationships: { unit: identifier('units', PAST) } } },
    status: 400,
    names: 'data.relationships.unit.data.id must be a whole number from 1 to 2147483647',
  },
  {
    name: 'the same id as a string',
    method: 'PATCH',
    path: '/products/1',
    body: { data: { type: 'products', relationships: { unit: identifier('units', String(PAST)) } } },
    status: 400,
    names: 'data.relationships.unit.data.id must be a whole number from 1 to 2147483647',
  },
  {
    name: 'a to-many relationship id (2^53)',
    method: 'POST',
    path: '/customers/1/relationships/commercial_resolve_responsible_users',
    body: { data: [{ type: 'users', id: 2 ** 53 }] },
    status: 400,
    names: 'data[0].id',
  },
  {
    name: 'REL-SET',
    method: 'PATCH',
    path: '/products/1/relationships/brand',
    body: identifier('brands', PAST),
    status: 400,
    names: 'data.id',
  },
  {
    name: "an item's product",
    method: 'POST',
    path: '/product_structures/1/items',
    body: {
      data: [
        {
          type: 'product_structure_items',
          attributes: { net_quantity: 1 },
          relationships: { product: identifier('products', PAST) },
        },
      ],
    },
    status: 400,
    names: 'data[0].relationships.product.data.id',
  },
  {
    name: 'an integer attribute',
    method: 'PATCH',
    path: '/product_groups/1',
    body: { data: { type: 'product_groups', attributes: { inform_days_bbd: PAST } } },
    status: 400,
    names: 'inform_days_bbd must be an integer from -2147483648 to 2147483647',
  },
  { name: 'a path id', method: 'GET', path: `/products/${PAST}`, status: 404, names: String(PAST) },
  {
    name: 'a filter value',
    method: 'GET',
    path: `/products?product_group_id=${PAST}`,
    status: 400,
    names: 'product_group_id',
  },
  { name: 'a page number', method: 'GET', path: `/products?page=${PAST}`, status: 400, names: 'page' },
  { name: "the change log's cursor", method: 'GET', path: `/changes?after=${PAST}`, status: 400, names: 'after' },
];

describe.each(providers)('integers past 32 bits on %s', (provider) => {
  let env: GraphQLTestEnv;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
  }, 120_000);
  afterAll(async () => env?.database.cleanup());

  it.each(REST_CASES)('REST: $name is $status naming $names', async (c) => {
    const res = await env.t.request(c.path, {
      method: c.method,
      headers: { Authorization: `Bearer ${env.token}`, 'Content-Type': 'application/json' },
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(c.status);
    expect(text).toContain(c.names);
  });

  const GRAPHQL_CASES: [string, string, string][] = [
    [
      'a list cursor whose id is past 32 bits',
      `{ products(after: "${encodeCursor(0, PAST)}") { totalCount } }`,
      'after',
    ],
    [
      'a list cursor whose position is past 32 bits',
      `{ products(after: "${encodeCursor(PAST * 2)}") { totalCount } }`,
      'after',
    ],
    ["the change log's cursor", `{ changes(after: "${PAST}") { nodes { cursor } } }`, 'after'],
    ["a resource's history cursor", `{ product(id: 1) { history(after: "${PAST}") { nodes { cursor } } } }`, 'after'],
    ['an Int argument', `{ product(id: ${PAST}) { id } }`, String(PAST)],
  ];
  it.each(GRAPHQL_CASES)('GraphQL: %s is BAD_USER_INPUT naming it', async (_name, query, names) => {
    const res = await env.gql(query);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
    const [error] = res.body.errors ?? [];
    expect(error?.extensions?.code, JSON.stringify(res.body)).toBe('BAD_USER_INPUT');
    expect(error!.message).toContain(names);
  });
});
