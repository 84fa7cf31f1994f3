/**
 * Every documented GraphQL limit (docs/reference/graphql.md "Limits") against every kind of field, on both
 * databases: for each limit and kind, a request exactly at the limit runs, and one just past it is
 * refused before anything runs, with the limit's code and a message that names the limit and the
 * value found. Kinds: root lists (`first`, `last`, the default page size) and lookups by id,
 * to-many relationships, reverse links (`ProductGroup.products`, `Product.usedIn`), `history`,
 * root `changes`, `bom` and `whereUsed`, introspection (`__schema`, `__type`), named and inline
 * fragments (a union's too), aliases, `@skip`, variables (and their defaults) for sizes, mutation
 * results, and subscription fields over Server-Sent Events. The costs below are worked out by
 * the documented rule (1 per field; the selection under a field times its page size, 10 for a
 * list, 10 x levels for `bom`/`whereUsed`, which cost 5 themselves): the refusal quotes the cost
 * it found, so a kind counted otherwise fails here.
 */
import { Lexer, Source, TokenKind } from 'graphql';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../support/app.ts';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { listen, type Listening, logHead } from '../support/live.ts';
import { applyTestRoles, EXAMPLE_ROLES, tokenWithRole } from '../support/roles.ts';
import { SseStream } from '../support/sse.ts';
import { wsUrl } from '../support/ws.ts';
import { streamedResult } from '../support/sse.ts';

/** One request: over plain HTTP, or over Server-Sent Events (subscriptions). */
interface Sent {
  query: string;
  variables?: Record<string, unknown>;
  sse?: boolean;
}

/** A limit and a kind of field: a request at the limit, one just past it, and how that one is refused. */
interface Probe {
  limit: string;
  kind: string;
  at: Sent;
  past: Sent;
  code: string;
  message: RegExp;
  /** The field `extensions.field` names. */
  field?: string;
}

const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);
const times = (n: number, text: string) => Array.from({ length: n }, () => text).join(' ');

// Page sizes and levels -------------------------------------------------------------------------

/** A sized argument: `query(v)` gives it the value v; the bounds are the documented ones. */
function sized(
  kind: string,
  argument: string,
  [min, max]: [number, number],
  query: (v: number) => Sent,
  { lower = true }: { lower?: boolean } = {},
): Probe[] {
  const message = (v: number) => new RegExp(`^${argument} must be between ${min} and ${max} \\(got ${v}\\)`);
  const probes: Probe[] = [
    {
      limit: `${argument} at most ${max}`,
      kind,
      at: query(max),
      past: query(max + 1),
      code: 'BAD_USER_INPUT',
      message: message(max + 1),
      field: argument,
    },
  ];
  if (lower)
    probes.push({
      limit: `${argument} at least ${min}`,
      kind,
      at: query(min),
      past: query(min - 1),
      code: 'BAD_USER_INPUT',
      message: message(min - 1),
      field: argument,
    });
  return probes;
}

const literal = (query: (v: number) => string) => (v: number) => ({ query: query(v) });

const PAGE_SIZES: Probe[] = [
  ...sized(
    'root list, first',
    'first',
    [0, 100],
    literal((v) => `{ products(first: ${v}) { nodes { id } } }`),
  ),
  ...sized(
    'root list, last',
    'last',
    [0, 100],
    literal((v) => `{ products(last: ${v}) { nodes { id } } }`),
  ),
  ...sized(
    'reverse link ProductGroup.products',
    'first',
    [0, 100],
    literal((v) => `{ productGroup(id: 1) { products(first: ${v}) { nodes { id } } } }`),
  ),
  ...sized(
    'reverse link Product.usedIn',
    'first',
    [0, 100],
    literal((v) => `{ product(id: 1) { usedIn(first: ${v}) { nodes { id } } } }`),
  ),
  ...sized(
    'history of a lookup by id',
    'first',
    [1, 100],
    literal((v) => `{ product(id: 1) { history(first: ${v}) { nodes { cursor } } } }`),
  ),
  ...sized(
    'history of a list page',
    'first',
    [1, 100],
    literal((v) => `{ units(first: 2) { nodes { history(first: ${v}) { nodes { cursor } } } } }`),
  ),
  ...sized(
    'root changes',
    'first',
    [1, 500],
    literal((v) => `{ changes(first: ${v}) { nodes { cursor } } }`),
  ),
  ...sized('a variable', 'first', [0, 100], (v) => ({
    query: 'query($n: Int) { products(first: $n) { nodes { id } } }',
    variables: { n: v },
  })),
  ...sized('a variable left to its default', 'first', [0, 100], (v) => ({
    query: `query($n: Int = ${v}) { productGroup(id: 1) { products(first: $n) { nodes { id } } } }`,
  })),
  ...sized(
    'a named fragment',
    'first',
    [0, 100],
    literal(
      (v) => `{ productGroup(id: 1) { ...G } } fragment G on ProductGroup { products(first: ${v}) { nodes { id } } }`,
    ),
  ),
  ...sized(
    'an inline fragment of a union (Change.node)',
    'first',
    [1, 100],
    literal(
      (v) =>
        `{ changes(first: 1) { nodes { node { ... on Product { history(first: ${v}) { nodes { cursor } } } } } } }`,
    ),
  ),
  ...sized(
    'an alias beside another',
    'first',
    [0, 100],
    literal((v) => `{ a: products(first: 1) { nodes { id } } b: products(first: ${v}) { nodes { id } } }`),
  ),
  ...sized(
    'a skipped field (both branches count)',
    'first',
    [0, 100],
    literal((v) => `{ products(first: ${v}) @skip(if: true) { nodes { id } } __typename }`),
    { lower: false },
  ),
  ...sized(
    'a mutation result',
    'first',
    [1, 100],
    literal((v) => `mutation { updateUnit(id: 1, input: {}) { history(first: ${v}) { nodes { cursor } } } }`),
    { lower: false },
  ),
  ...sized('a subscription field (SSE)', 'first', [1, 100], (v) => ({
    query: `subscription($after: String) { changes(after: $after) { cursor node { ... on Brand { history(first: ${v}) { nodes { cursor } } } } } }`,
    sse: true,
  })),
  ...sized(
    'bom',
    'levels',
    [1, 20],
    literal((v) => `{ product(id: 1) { bom(levels: ${v}) { level } } }`),
  ),
  ...sized(
    'whereUsed',
    'levels',
    [1, 20],
    literal((v) => `{ product(id: 1) { whereUsed(levels: ${v}) { level } } }`),
  ),
  ...sized('bom, levels as a variable', 'levels', [1, 20], (v) => ({
    query: 'query($l: Int) { product(id: 1) { bom(levels: $l) { level } } }',
    variables: { l: v },
  })),
];

// Depth -----------------------------------------------------------------------------------------

/** Selections under a Product, exactly `r` levels deep (r >= 1): to-one, reverse link, its nodes, again. */
function fromProduct(r: number): string {
  const steps = ['productGroup', 'products(first: 1)', 'nodes'];
  const leaves = ['id', 'totalCount', 'id'];
  if (r === 1) return 'id';
  let open = '';
  for (let i = 0; i < r - 1; i++) open += `${steps[i % 3]} { `;
  return `${open}${leaves[(r - 2) % 3]} ${'} '.repeat(r - 1)}`;
}

/** A depth probe: `wrap(inner)` puts a Product selection at `above` levels down. */
function deep(kind: string, above: number, wrap: (inner: string) => Sent, limit = 12): Probe {
  const name = limit === 12 ? 'Query depth' : 'Introspection depth';
  return {
    limit: `depth ${limit}`,
    kind,
    at: wrap(fromProduct(limit - above)),
    past: wrap(fromProduct(limit + 1 - above)),
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: new RegExp(`^${name} limit of ${limit} exceeded, found ${limit + 1}\\.$`),
  };
}

/** `ofType` nested so that the whole selection is `n` deep, `prefix` being `above` levels. */
const ofTypes = (n: number, above: number) => `${'ofType { '.repeat(n - above - 1)}name${' }'.repeat(n - above - 1)}`;

const DEPTH: Probe[] = [
  deep('root list, reverse links', 2, (s) => ({ query: `{ products(first: 1) { nodes { ${s} } } }` })),
  deep('lookup by id', 1, (s) => ({ query: `{ product(id: 1) { ${s} } }` })),
  deep('named fragment', 1, (s) => ({ query: `{ product(id: 1) { ...F } } fragment F on Product { ${s} }` })),
  // product 1, productGroup 2 (F), products 3 and nodes 4 (G), then H.
  deep('nested named fragments', 4, (s) => ({
    query: `{ product(id: 1) { ...F } } fragment F on Product { productGroup { ...G } } fragment G on ProductGroup { products(first: 1) { nodes { ...H } } } fragment H on Product { ${s} }`,
  })),
  deep('inline fragments', 1, (s) => ({ query: `{ product(id: 1) { ... on Product { ... { ${s} } } } }` })),
  deep('a union (Change.node)', 3, (s) => ({
    query: `{ changes(first: 1) { nodes { node { ... on Product { ${s} } } } } }`,
  })),
  deep('history', 4, (s) => ({
    query: `{ product(id: 1) { history(first: 1) { nodes { node { ... on Product { ${s} } } } } } }`,
  })),
  deep('bom', 3, (s) => ({ query: `{ product(id: 1) { bom(levels: 1) { product { ${s} } } } }` })),
  deep('to-many relationship (structure items)', 3, (s) => ({
    query: `{ productStructure(id: 1) { items { product { ${s} } } } }`,
  })),
  deep('mutation result', 1, (s) => ({ query: `mutation { updateProduct(id: 1, input: {}) { ${s} } }` })),
  deep('subscription field (SSE)', 2, (s) => ({
    query: `subscription($after: String) { changes(after: $after) { node { ... on Product { ${s} } } } }`,
    sse: true,
  })),
  {
    limit: 'depth 15 under introspection',
    kind: '__schema',
    at: { query: `{ __schema { types { fields { type { ${ofTypes(15, 4)} } } } } }` },
    past: { query: `{ __schema { types { fields { type { ${ofTypes(16, 4)} } } } } }` },
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /^Introspection depth limit of 15 exceeded, found 16\.$/,
  },
  {
    limit: 'depth 15 under introspection',
    kind: '__type',
    at: { query: `{ __type(name: "Product") { fields { type { ${ofTypes(15, 3)} } } } }` },
    past: { query: `{ __type(name: "Product") { fields { type { ${ofTypes(16, 3)} } } } }` },
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /^Introspection depth limit of 15 exceeded, found 16\.$/,
  },
];

// Aliases, directives ---------------------------------------------------------------------------

function counted(
  limit: string,
  max: number,
  kind: string,
  query: (n: number) => string,
  message: (n: number) => RegExp,
  code = 'GRAPHQL_VALIDATION_FAILED',
): Probe {
  return { limit, kind, at: { query: query(max) }, past: { query: query(max + 1) }, code, message: message(max + 1) };
}

const aliases = (kind: string, query: (n: number) => string) =>
  counted('aliases 30', 30, kind, query, (n) => new RegExp(`^Aliases limit of 30 exceeded, found ${n}\\.$`));
const directives = (kind: string, query: (n: number) => string) =>
  counted('directives 50', 50, kind, query, (n) => new RegExp(`^Directives limit of 50 exceeded, found ${n}\\.$`));

const ALIASES: Probe[] = [
  aliases(
    'lookups by id',
    (n) =>
      `{ ${range(n)
        .map((i) => `a${i}: product(id: ${i}) { id }`)
        .join(' ')} }`,
  ),
  aliases(
    'the same root list',
    (n) =>
      `{ ${range(n)
        .map((i) => `a${i}: units(first: 1) { nodes { id } }`)
        .join(' ')} }`,
  ),
  aliases(
    'fields of a list page',
    (n) =>
      `{ products(first: 1) { nodes { ${range(n)
        .map((i) => `a${i}: id`)
        .join(' ')} } } }`,
  ),
  // 2 per spread of F: counted once per spread.
  aliases(
    'a named fragment spread several times',
    (n) =>
      `{ product(id: 1) { ${times(Math.floor(n / 2), '...F')} ${n % 2 ? 'z: id' : ''} } } fragment F on Product { x: id y: reference }`,
  ),
  aliases(
    'introspection',
    (n) =>
      `{ ${range(n)
        .map((i) => `a${i}: __type(name: "Product") { name }`)
        .join(' ')} }`,
  ),
];

const DIRECTIVES: Probe[] = [
  directives('fields', (n) => `{ product(id: 1) { ${times(n, 'id @include(if: true)')} } }`),
  directives(
    'fragment spreads (each counted, not only the first)',
    (n) => `{ product(id: 1) { ${times(n, '...F @include(if: true)')} } } fragment F on Product { id }`,
  ),
  directives(
    'inline fragments',
    (n) => `{ product(id: 1) { ${times(n, '... on Product @include(if: true) { id }')} } }`,
  ),
  directives(
    'inside a named fragment spread several times',
    (n) =>
      `{ product(id: 1) { ${times(Math.floor(n / 2), '...F')} ${n % 2 ? 'id @skip(if: false)' : ''} } } fragment F on Product { id @include(if: true) reference @skip(if: false) }`,
  ),
  directives('introspection', (n) => `{ __schema { ${times(n, 'queryType @include(if: true) { name }')} } }`),
];

// Tokens, selected fields -------------------------------------------------------------------------

/** Lexical tokens of a document, as graphql-js's lexer reads them (the limit's count). */
function tokensOf(query: string): number {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count++;
  return count;
}

/** A document of exactly `n` tokens: root lists filtered by 100 ids (merged: one field), then `__typename`s. */
function ofTokens(n: number): string {
  const list = `products(first: 1, filter: { idIn: [${range(100)}] }) { totalCount }`;
  let body = '';
  while (tokensOf(`{ ${body} ${list} }`) <= n) body += ` ${list}`;
  return `{ ${body} ${times(n - tokensOf(`{ ${body} }`), '__typename')} }`;
}

const breadth = (kind: string, query: (n: number) => string) =>
  counted(
    'selected fields 1000',
    1000,
    kind,
    query,
    (n) => new RegExp(`^Query breadth of ${n} exceeds max breadth of 1000$`),
    'QUERY_BREADTH',
  );

const TOKENS_AND_BREADTH: Probe[] = [
  counted('tokens 5000', 5000, 'arguments, lists and fields', ofTokens, () => /^Token limit of 5000 exceeded\.$/),
  // Fragments of 10 fields spread many times (counted once per spread): a thousand fields of one
  // name in one selection would be more than graphql-js's overlap check compares.
  breadth(
    'root fields, by a named fragment spread many times',
    (n) =>
      `{ ${times(Math.floor(n / 10), '...F')} ${times(n % 10, '__typename')} } fragment F on Query { ${times(10, '__typename')} }`,
  ),
  breadth(
    'fields of a list page',
    (n) =>
      `{ products(first: 1) { nodes { ${times(Math.floor((n - 2) / 10), '...P')} ${times((n - 2) % 10, 'id')} } } } fragment P on Product { ${times(10, 'id')} }`,
  ),
  breadth(
    'introspection',
    (n) =>
      `{ __schema { types { ${times(Math.floor((n - 2) / 10), '...T')} ${times((n - 2) % 10, 'name')} } } } fragment T on __Type { ${times(10, 'name')} }`,
  ),
];

// Estimated cost --------------------------------------------------------------------------------

const MAX_COST = 200_000;

/**
 * Selections (valid on Query and on ProductGroup alike) that cost exactly `target` (>= 0) by the
 * documented rule: pages of products whose groups' products pay 2003, 203 or 2 a row, then
 * `__typename`s for what is left.
 */
function costing(target: number): string {
  const parts: string[] = [];
  let left = target;
  const page = (alias: string, perRow: number, inner: string) => {
    const rows = Math.min(100, Math.floor((left - 1) / perRow));
    if (rows < 1) return;
    parts.push(`${alias}: products(first: ${rows}) { nodes { ${inner} } }`);
    left -= 1 + rows * perRow;
  };
  // nodes 1 + productGroup 1 + products 1 + 100 x (nodes 1 + 19 fields) = 2003 a row.
  page('f', 2003, `productGroup { products(first: 100) { nodes { ${times(19, 'id')} } } }`);
  // nodes 1 + productGroup 1 + products 1 + 100 x (nodes 1 + id 1) = 203 a row.
  page('h', 203, 'productGroup { products(first: 100) { nodes { id } } }');
  // nodes 1 + id 1 = 2 a row.
  page('g', 2, 'id');
  return `${parts.join(' ')} ${times(left, '__typename')}`;
}

/** A cost probe: `selection` costs `cost` by the documented rule; the rest of the operation makes it 200,000 (then 200,001). */
function costs(
  kind: string,
  cost: number,
  selection: string,
  extra: Partial<Sent> & { fragments?: string; definitions?: string } = {},
): Probe {
  const { fragments = '', definitions = '', ...sent } = extra;
  const query = (total: number) => ({
    ...sent,
    query: `query${definitions} { ${selection} ${costing(total - cost)} } ${fragments}`,
  });
  return {
    limit: 'estimated cost 200,000',
    kind,
    at: query(MAX_COST),
    past: query(MAX_COST + 1),
    code: 'QUERY_COMPLEXITY',
    message: /^Query complexity of 200001 exceeds max complexity of 200000$/,
  };
}

const COST: Probe[] = [
  costs('root list, first', 101, 'k: products(first: 50) { nodes { id } }'),
  costs('root list, last', 101, 'k: products(last: 50) { nodes { id } }'),
  costs('root list, default page size (20)', 41, 'k: units { nodes { id } }'),
  costs('lookup by id', 3, 'k: product(id: 1) { id reference }'),
  costs('to-many relationship (join table, x 10)', 12, 'k: customer(id: 1) { informOnComplaintUsers { id } }'),
  costs('to-many relationship (structure items, x 10)', 12, 'k: productStructure(id: 1) { items { id } }'),
  costs('reverse link ProductGroup.products', 62, 'k: productGroup(id: 1) { products(first: 30) { nodes { id } } }'),
  costs('reverse link Product.usedIn, default page size', 42, 'k: product(id: 1) { usedIn { nodes { id } } }'),
  costs('history', 82, 'k: product(id: 1) { history(first: 40) { nodes { cursor } } }'),
  costs('history, default page size', 42, 'k: product(id: 1) { history { nodes { cursor } } }'),
  costs('root changes', 601, 'k: changes(first: 300) { nodes { cursor } }'),
  costs('root changes, default page size (100)', 201, 'k: changes { nodes { cursor } }'),
  costs('bom (5, x 10 x levels)', 36, 'k: product(id: 1) { bom(levels: 3) { level } }'),
  costs('bom, default levels (10)', 106, 'k: product(id: 1) { bom { level } }'),
  costs('whereUsed', 26, 'k: product(id: 1) { whereUsed(levels: 2) { level } }'),
  costs('introspection __schema (lists x 10)', 112, 'k: __schema { types { fields { name } } }'),
  costs('introspection __type', 12, 'k: __type(name: "Product") { fields { name } }'),
  costs('a named fragment spread twice', 44, 'k1: product(id: 1) { ...P } k2: product(id: 2) { ...P }', {
    fragments: 'fragment P on Product { history(first: 10) { nodes { cursor } } }',
  }),
  costs(
    'an inline fragment of a union (Change.node)',
    231,
    'k: changes(first: 10) { nodes { node { ... on Product { history(first: 10) { nodes { cursor } } } } } }',
  ),
  costs('page size as a variable', 62, 'k: productGroup(id: 1) { products(first: $n) { nodes { id } } }', {
    definitions: '($n: Int)',
    variables: { n: 30 },
  }),
  costs(
    'page size as a variable left to its default',
    62,
    'k: productGroup(id: 1) { products(first: $n) { nodes { id } } }',
    {
      definitions: '($n: Int = 30)',
    },
  ),
  costs('a skipped field (both branches count)', 101, 'k: products(first: 50) @skip(if: true) { nodes { id } }'),
  {
    // updateProduct 1 + productGroup 1 + what is under it.
    ...costs('a mutation result', 0, ''),
    at: { query: `mutation { updateProduct(id: 1, input: {}) { productGroup { ${costing(MAX_COST - 2)} } } }` },
    past: { query: `mutation { updateProduct(id: 1, input: {}) { productGroup { ${costing(MAX_COST - 1)} } } }` },
  },
  {
    // changes 1 + node 1 + what is under it (in the ProductGroup fragment).
    ...costs('a subscription field (SSE)', 0, ''),
    at: {
      query: `subscription($after: String) { changes(after: $after) { node { ... on ProductGroup { ${costing(MAX_COST - 2)} } } } }`,
      sse: true,
    },
    past: {
      query: `subscription($after: String) { changes(after: $after) { node { ... on ProductGroup { ${costing(MAX_COST - 1)} } } } }`,
      sse: true,
    },
  },
];

// Items of a list -------------------------------------------------------------------------------

const list = (kind: string, field: string, query: (ids: number[]) => Sent): Probe => ({
  limit: 'items of a list 100',
  kind,
  at: query(range(100)),
  past: query(range(101)),
  code: 'BAD_USER_INPUT',
  message: /holds 101 items: a list takes at most 100$/,
  field,
});

const LISTS: Probe[] = [
  list('a filter, literal', 'filter.idIn', (ids) => ({
    query: `{ products(filter: { idIn: [${ids}] }) { totalCount } }`,
  })),
  list('a filter, variable', 'filter.idIn', (ids) => ({
    query: 'query($ids: [Int!]) { products(filter: { idIn: $ids }) { totalCount } }',
    variables: { ids },
  })),
  list('inside a variable of an input type', 'filter.idIn', (ids) => ({
    query: 'query($f: ProductFilter) { products(filter: $f) { totalCount } }',
    variables: { f: { idIn: ids } },
  })),
  list('an enum list (orderBy)', 'orderBy', (ids) => ({
    query: `{ products(first: 1, orderBy: [${ids.map(() => 'ID_ASC')}]) { nodes { id } } }`,
  })),
  list('root changes, types', 'types', (ids) => ({
    query: `{ changes(first: 1, types: [${ids.map(() => 'PRODUCTS')}]) { nodes { cursor } } }`,
  })),
  list('a subscription argument (SSE)', 'types', (ids) => ({
    query: `subscription($after: String) { changes(after: $after, types: [${ids.map(() => 'BRANDS')}]) { cursor } }`,
    sse: true,
  })),
  list('a to-many change in a mutation input', 'informOnComplaintUsers.remove', (ids) => ({
    query: `mutation { updateCustomer(id: 1, input: { informOnComplaintUsers: { remove: [${ids.map((i) => i + 100_000)}] } }) { id } }`,
  })),
  list('a mutation argument, variable', 'itemIds', (ids) => ({
    query: 'mutation($ids: [Int!]!) { removeProductStructureItems(structureId: 1, itemIds: $ids) { id } }',
    variables: { ids: ids.map((i) => i + 900_000) },
  })),
];

// __typename, __schema and __type, as admin and as a role ----------------------------------------

/** `n` aliased selections made by `field(i)`. */
const aliased = (n: number, field: (i: number) => string) => range(n).map(field).join(' ');

/**
 * Selections under `__type(name: "Query")` and what each costs with it by the documented rule
 * (`__type` 1, `name` 1, every list x 10): `fields { name }` is 1 + (1 + 10 x 1) = 12, and so on.
 * No more than two of `fields`, `interfaces`, `possibleTypes` and `inputFields` nested, which
 * graphql-js refuses whatever the cost ("Maximum introspection depth exceeded").
 */
const TYPE_COSTS: [selection: string, cost: number][] = [
  ['fields { args { type { fields { args { type { enumValues { name } } } } } } }', 121_212],
  ['fields { args { type { fields { args { name } } } } }', 11_212],
  ['fields { args { type { enumValues { name } } } }', 1212],
  ['fields { args { name } }', 112],
  ['fields { name }', 12],
];

/** Introspection and `__typename` only, aliased, costing exactly `target`: no schema field needed. */
function introspectionCosting(target: number): string {
  const parts: string[] = [];
  let left = target;
  for (const [selection, cost] of TYPE_COSTS)
    for (; left >= cost; left -= cost) parts.push(`t${parts.length}: __type(name: "Query") { ${selection} }`);
  return `${parts.join(' ')} ${times(left, '__typename')}`;
}

const META_FIELDS: Probe[] = [
  aliases('__typename, aliased', (n) => `{ ${aliased(n, (i) => `a${i}: __typename`)} }`),
  aliases('__typename, aliased, under __schema', (n) => `{ __schema { ${aliased(n, (i) => `a${i}: __typename`)} } }`),
  aliases(
    '__typename, aliased, in a fragment spread twice',
    (n) =>
      `{ ${times(Math.floor(n / 2), '...Q')} ${n % 2 ? 'z: __typename' : ''} } fragment Q on Query { x: __typename y: __typename }`,
  ),
  aliases('__schema, aliased', (n) => `{ ${aliased(n, (i) => `a${i}: __schema { queryType { name } }`)} }`),
  aliases('__type, aliased', (n) => `{ ${aliased(n, (i) => `a${i}: __type(name: "Query") { name }`)} }`),
  aliases('fields under __type, aliased', (n) => `{ __type(name: "Query") { ${aliased(n, (i) => `a${i}: name`)} } }`),
  {
    limit: 'depth 15 under introspection',
    kind: '__typename at the bottom of __type',
    at: {
      query: `{ __type(name: "Query") { fields { type { ${'ofType { '.repeat(11)}__typename${' }'.repeat(11)} } } } }`,
    },
    past: {
      query: `{ __type(name: "Query") { fields { type { ${'ofType { '.repeat(12)}__typename${' }'.repeat(12)} } } } }`,
    },
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /^Introspection depth limit of 15 exceeded, found 16\.$/,
  },
  directives('__typename', (n) => `{ ${times(n, '__typename @include(if: true)')} }`),
  directives('__type', (n) => `{ ${times(n, '__type(name: "Query") @include(if: true) { name }')} }`),
  counted(
    'tokens 5000',
    5000,
    'lists in arguments, then __typename',
    ofTokens,
    () => /^Token limit of 5000 exceeded\.$/,
  ),
  breadth(
    '__typename, by a named fragment spread many times',
    (n) =>
      `{ ${times(Math.floor(n / 10), '...F')} ${times(n % 10, '__typename')} } fragment F on Query { ${times(10, '__typename')} }`,
  ),
  {
    limit: 'estimated cost 200,000',
    kind: '__type (its lists x 10), aliased, and __typename',
    at: { query: `{ ${introspectionCosting(MAX_COST)} }` },
    past: { query: `{ ${introspectionCosting(MAX_COST + 1)} }` },
    code: 'QUERY_COMPLEXITY',
    message: /^Query complexity of 200001 exceeds max complexity of 200000$/,
  },
];

const PROBES: Probe[] = [...PAGE_SIZES, ...DEPTH, ...ALIASES, ...DIRECTIVES, ...TOKENS_AND_BREADTH, ...COST, ...LISTS];

describe.each(providers)('GraphQL limits on %s: each limit x each kind of field', (provider) => {
  let env: GraphQLTestEnv;
  /** A change-log cursor one entry before the end: a subscription from it gets one event at once. */
  let after: string;
  /** A token of each client the probes of META_FIELDS are sent as: admin, and a role's. */
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    await env.gql('mutation { createBrand(input: { reference: "LIMITS-1" }) { id } }');
    after = String((await logHead(env.database.db.prisma)) - 1);
    await applyTestRoles(env.database.db, EXAMPLE_ROLES);
    tokens.admin = env.token;
    tokens.web_shop = await tokenWithRole(env.t, env.database.db, 'web_shop', ['read']);
  });
  afterAll(async () => {
    await env?.t.app.close();
    await env?.database.cleanup();
  });

  /** The outcome of a request: its status and its (first) result; over SSE, the first event's. */
  async function send(sent: Sent, token = env.token): Promise<{ status: number; result: any; text: string }> {
    if (!sent.sse) {
      const res = await env.t.request('/graphql', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/graphql-response+json',
        },
        body: JSON.stringify({ query: sent.query, variables: sent.variables }),
      });
      const text = await res.text();
      return { status: res.status, result: JSON.parse(text), text };
    }
    const stream = await SseStream.open((path, init) => env.t.request(path, init), {
      query: sent.query,
      variables: { after, ...sent.variables },
      token: env.token,
    });
    try {
      if (stream.status !== 200) return { status: stream.status, result: undefined, text: await stream.text() };
      await stream.until((s) => s.results.length > 0, 'a first result');
      const result = stream.results[0]!.result;
      return { status: 200, result, text: JSON.stringify(result) };
    } finally {
      await stream.close();
    }
  }

  /** A probe's request at the limit runs; the one past it is refused before anything runs, with the limit's code and words. */
  async function holds(probe: Probe, token = env.token) {
    const at = await send(probe.at, token);
    expect(at.status, at.text.slice(0, 500)).toBe(200);
    expect(at.result.errors, at.text.slice(0, 500)).toBeUndefined();
    expect(at.result.data, at.text.slice(0, 500)).toBeDefined();

    const past = await send(probe.past, token);
    // A request error: 400 and no data (over SSE, the stream's one event).
    if (!probe.past.sse) expect(past.status, past.text.slice(0, 500)).toBe(400);
    expect(past.result.data, past.text.slice(0, 500)).toBeUndefined();
    const error = past.result.errors?.[0];
    expect(error?.message, past.text.slice(0, 500)).toMatch(probe.message);
    expect(error?.extensions?.code, past.text.slice(0, 500)).toBe(probe.code);
    if (probe.field) expect(error?.extensions?.field).toBe(probe.field);
  }

  it.each(PROBES.map((p) => [p.limit, p.kind, p] as const))('%s, %s', (_limit, _kind, probe) => holds(probe));

  it.each(META_FIELDS.flatMap((p) => ['admin', 'web_shop'].map((as) => [p.limit, p.kind, as, p] as const)))(
    '%s, %s, as %s',
    (_limit, _kind, as, probe) => holds(probe, tokens[as]),
  );

  it('builds its documents as said: exactly 5000 tokens at the token limit', () => {
    expect(tokensOf(ofTokens(5000))).toBe(5000);
    expect(tokensOf(ofTokens(5001))).toBe(5001);
  });

  describe('the request body (MAX_BODY_BYTES 2048)', () => {
    const LIMIT = 2048;
    let small: TestApp;
    let listening: Listening;
    beforeAll(async () => {
      small = testApp(env.database, { maxBodyBytes: LIMIT });
      listening = await listen(small.app);
    });
    afterAll(async () => listening?.close());

    /** A query padded with spaces so that `wrap(query)` is exactly `bytes` bytes. */
    const padded = (bytes: number, wrap: (query: string) => string) => {
      const bare = wrap('{ __typename }');
      return wrap(`{ __typename }${' '.repeat(bytes - Buffer.byteLength(bare))}`);
    };
    const body = (query: string) => JSON.stringify({ query });

    it.each([
      ['plain HTTP', 'application/graphql-response+json'],
      ['Server-Sent Events', 'text/event-stream'],
    ])('over %s: a body of exactly the limit runs, one byte more is 413 PAYLOAD_TOO_LARGE', async (_name, accept) => {
      const post = (text: string) =>
        small.request('/graphql', {
          method: 'POST',
          headers: { Authorization: `Bearer ${env.token}`, 'Content-Type': 'application/json', Accept: accept },
          body: text,
        });
      const at = await post(padded(LIMIT, body));
      expect(Buffer.byteLength(padded(LIMIT, body))).toBe(LIMIT);
      expect(at.status).toBe(200);
      expect(await at.text()).toContain('"__typename":"Query"');
      const past = await post(padded(LIMIT + 1, body));
      expect(past.status).toBe(413);
      // A client that takes only an event stream is refused in one: its one event holds the errors.
      const text = await past.text();
      const refusal = JSON.parse(accept === 'text/event-stream' ? streamedResult(text) : text);
      expect(refusal.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('over WebSocket: a message of exactly the limit runs, one byte more closes the socket with 1009', async () => {
      const subscribe = (query: string) => JSON.stringify({ id: '1', type: 'subscribe', payload: { query } });
      const run = (message: string) =>
        new Promise<{ next?: unknown; closed?: number }>((resolve, reject) => {
          const socket = new WebSocket(wsUrl(listening.baseUrl), 'graphql-transport-ws');
          const timer = setTimeout(() => reject(new Error('no answer within 10 s')), 10_000);
          const done = (outcome: { next?: unknown; closed?: number }) => {
            clearTimeout(timer);
            resolve(outcome);
            socket.close();
          };
          socket.on('open', () =>
            socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${env.token}` } })),
          );
          socket.on('message', (data) => {
            const received = JSON.parse(String(data));
            if (received.type === 'connection_ack') socket.send(message);
            else if (received.type === 'next') done({ next: received.payload });
          });
          socket.on('close', (code) => done({ closed: code }));
          socket.on('error', () => undefined);
        });
      const at = padded(LIMIT, subscribe);
      expect(Buffer.byteLength(at)).toBe(LIMIT);
      expect(await run(at)).toEqual({ next: { data: { __typename: 'Query' } } });
      expect(await run(padded(LIMIT + 1, subscribe))).toEqual({ closed: 1009 });
    });
  });
});
