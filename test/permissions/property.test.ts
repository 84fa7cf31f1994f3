/**
 * Random roles against random reads: for each run a role with random field lists and row filters
 * on products, suppliers, product groups and structure items is applied, a client gets it, and
 * random requests go over REST, a GraphQL query, and the change log over REST and a subscription
 * (after admin writes to fields that may be hidden). No answer may hold a resource of a type the role cannot read, a
 * row outside its filter (by a model of the filter written here, over the rows as Prisma reads
 * them), a field it may not see (by name), a relationship to a row it cannot see, or the value of
 * a hidden field (canary values written into products and suppliers first). Both databases.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/resources/registry.ts';
import { providers } from '../support/databases.ts';
import {
  applyTestRoles,
  combined,
  type Condition,
  type RandomRole,
  roleFile,
  sees,
  seesAttribute,
  tokenWithRole,
} from '../support/roles.ts';
import { type Rest, restSuite } from '../rest/support.ts';
import { SseStream } from '../support/sse.ts';
import { attributeField } from '../../src/resources/names.ts';

const RUNS = Number(process.env.ROLE_RUNS ?? 25);
const SEED = process.env.ROLE_SEED === undefined ? undefined : Number(process.env.ROLE_SEED);

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const text = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : null);

/** Conditions on one scalar of the row (two-valued: a missing value matches nothing, its NOT everything). */
const SCALARS: Record<string, fc.Arbitrary<Condition>[]> = {
  products: [
    fc.boolean().map((b) => ({ where: { is_sales: { equals: b } }, holds: (r) => r.is_sales === b })),
    fc.boolean().map((b) => ({ where: { is_active: { equals: b } }, holds: (r) => r.is_active === b })),
    fc.constantFrom('a', 'e', 'P', '1').map((s) => ({
      where: { reference: { contains: s } },
      holds: (r) => text(r.reference)?.includes(s.toLowerCase()) ?? false,
    })),
    fc.integer({ min: 0, max: 30 }).map((n) => ({
      where: { consumer_price: { gt: n } },
      holds: (r) => (num(r.consumer_price) ?? Number.NEGATIVE_INFINITY) > n,
    })),
    fc.boolean().map((b) => ({ where: { gtin: { isNull: b } }, holds: (r) => (r.gtin === null) === b })),
    fc.integer({ min: 1, max: 8 }).map((n) => ({
      where: { product_group: { id: { lte: n } } },
      holds: (r) => r.product_group_id !== null && r.product_group_id <= n,
    })),
  ],
  suppliers: [
    fc.boolean().map((b) => ({ where: { is_active: { equals: b } }, holds: (r) => r.is_active === b })),
    fc.constantFrom('a', 'o', 'S').map((s) => ({
      where: { name: { startsWith: s } },
      holds: (r) => text(r.name)?.startsWith(s.toLowerCase()) ?? false,
    })),
  ],
  product_groups: [fc.integer({ min: 1, max: 12 }).map((n) => ({ where: { id: { lt: n } }, holds: (r) => r.id < n }))],
  product_structure_items: [
    fc.integer({ min: 0, max: 5 }).map((n) => ({
      where: { net_quantity: { gte: n } },
      holds: (r) => (num(r.net_quantity) ?? Number.NEGATIVE_INFINITY) >= n,
    })),
  ],
};

const condition = (type: string) => combined(fc.oneof(...SCALARS[type]!));

/** The types a random role may name; the others it never reads. */
const TYPES = ['products', 'suppliers', 'product_groups', 'product_structure_items', 'units', 'brands'] as const;
const fieldsOf = (type: string) => {
  const r = resources.find((x) => x.type === type)!;
  return [...Object.keys(r.attributes), ...Object.keys(r.relationships)];
};

const randomRole: fc.Arbitrary<RandomRole> = fc
  .tuple(
    ...TYPES.map((type) =>
      fc.record({
        readable: fc.boolean().map((b) => b || type === 'products'),
        fields: fc.option(fc.subarray(fieldsOf(type)), { nil: undefined }),
        condition: SCALARS[type] ? fc.option(condition(type), { nil: undefined }) : fc.constant(undefined),
      }),
    ),
  )
  .map((rules) => ({
    rules: new Map(
      rules.flatMap((rule, i) =>
        rule.readable ? [[TYPES[i]!, { fields: rule.fields, condition: rule.condition }]] : [],
      ),
    ),
  }));

/** A read a client might send: path and query. */
const request = fc.oneof(
  fc
    .record({
      page: fc.integer({ min: 1, max: 4 }),
      include: fc.subarray(['unit', 'product_group', 'brand', 'product_structure']),
    })
    .map(
      ({ page, include }) =>
        `/products?per_page=50&page=${page}${include.length ? `&include=${include.join(',')}` : ''}`,
    ),
  fc.integer({ min: 1, max: 120 }).map((id) => `/products/${id}?include=unit,product_group`),
  fc.integer({ min: 1, max: 120 }).map((id) => `/products/${id}/product_group`),
  fc.integer({ min: 1, max: 120 }).map((id) => `/products/${id}/relationships/product_group`),
  fc.integer({ min: 1, max: 3 }).map((page) => `/suppliers?per_page=50&page=${page}`),
  fc.integer({ min: 1, max: 30 }).map((id) => `/suppliers/${id}`),
  fc.integer({ min: 1, max: 5 }).map((page) => `/product_structure_items?per_page=50&page=${page}&include=product`),
  fc.constantFrom('/product_groups?per_page=50', '/units', '/brands', '/customers'),
);

describe.each(providers)('random roles over REST on %s', (provider) => {
  const api = restSuite(provider);
  /** Every row of the types roles may name, as Prisma reads them, by type and id. */
  const rows = new Map<string, Map<number, Record<string, any>>>();
  beforeAll(async () => {
    const prisma = api.prisma;
    // Canaries: hidden values to look for in every answer.
    for (const p of await prisma.product.findMany({ select: { id: true } }))
      await prisma.product.update({
        where: { id: p.id },
        data: { intrastat_code: `CANARY-ic-${p.id}`, legal_name_en: `CANARY-ln-${p.id}` },
      });
    for (const s of await prisma.supplier.findMany({ select: { id: true } }))
      await prisma.supplier.update({ where: { id: s.id }, data: { email: `canary-em-${s.id}@example.com` } });
    for (const type of TYPES) {
      const model = resources.find((r) => r.type === type)!.model;
      rows.set(type, new Map((await prisma[model].findMany()).map((r: any) => [r.id, r])));
    }
  }, 60_000);

  it('never answers a hidden type, row, field, relationship or value', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(randomRole, fc.array(request, { minLength: 3, maxLength: 8 }), async (role, paths) => {
        const name = `random_${++run}`;
        await api.prisma.apiClient.updateMany({ where: { role: { startsWith: 'random_' } }, data: { revoked: true } });
        await applyTestRoles(api.env.database.db, { [name]: roleFile(role) });
        const token = await tokenWithRole(api.env.t, api.env.database.db, name, ['read']);
        for (const path of paths) {
          const res = await api.request('GET', path, { token });
          checkAnswer(role, rows, path, res.status, res.body, res.text);
        }
        await checkGraphql(api, role, rows, token);
        await checkChanges(api, role, rows, token, run);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 300_000);
});

function visibleRow(role: RandomRole, rows: Map<string, Map<number, any>>, type: string, id: number): boolean {
  const rule = role.rules.get(type);
  if (!rule) return false;
  const row = rows.get(type)?.get(id);
  if (!row) return !TYPES.includes(type as any);
  return !rule.condition || rule.condition.holds(row);
}

function checkAnswer(
  role: RandomRole,
  rows: Map<string, Map<number, any>>,
  path: string,
  status: number,
  body: any,
  raw: string,
) {
  const where = `${path} -> ${status} ${raw.slice(0, 300)}`;
  const type = path.split(/[/?]/)[1]!;
  if (!role.rules.has(type)) {
    expect(status, where).toBe(403);
    return;
  }
  // An include of a relationship the role cannot see is refused as an unknown include.
  const include = new URL(`http://x${path}`).searchParams.get('include')?.split(',') ?? [];
  const includeType = path.includes('/product_structure_items') ? 'product_structure_items' : 'products';
  if (include.some((name) => !sees(role, includeType, name))) {
    expect(status, where).toBe(400);
    return;
  }
  // A relationship's path the role cannot see is 403.
  const relationship = /^\/products\/\d+\/(?:relationships\/)?(\w+)/.exec(path)?.[1];
  if (relationship && !sees(role, 'products', relationship)) {
    expect(status, where).toBe(403);
    return;
  }
  expect([200, 404], where).toContain(status);
  if (status === 404) {
    const id = Number(path.split(/[/?]/)[2]);
    expect(visibleRow(role, rows, type, id), `${where}: a visible row answered 404`).toBe(false);
  }
  if (status !== 200) return;
  const objects = [body.data, body.included].flat(2).filter((o) => o && typeof o === 'object' && 'attributes' in o);
  for (const object of objects) {
    expect(role.rules.has(object.type), `${where}: type ${object.type}`).toBe(true);
    expect(
      visibleRow(role, rows, object.type, object.id),
      `${where}: ${object.type} ${object.id} is outside the filter`,
    ).toBe(true);
    for (const field of Object.keys(object.attributes))
      expect(seesAttribute(role, object.type, field), `${where}: ${object.type}.${field} is hidden`).toBe(true);
    for (const field of Object.keys(object.relationships))
      expect(sees(role, object.type, field), `${where}: ${object.type}.${field} is hidden`).toBe(true);
    for (const [name, rel] of Object.entries<any>(object.relationships))
      for (const target of [rel.data].flat().filter(Boolean))
        expect(
          visibleRow(role, rows, target.type, target.id),
          `${where}: ${object.type}.${name} -> ${target.type} ${target.id}`,
        ).toBe(true);
  }
  for (const identifier of [body.data].flat().filter((d: any) => d && !('attributes' in d)))
    expect(
      visibleRow(role, rows, identifier.type, identifier.id),
      `${where}: identifier ${identifier.type} ${identifier.id}`,
    ).toBe(true);
  if (!seesAttribute(role, 'products', 'intrastat_code')) expect(raw, where).not.toContain('CANARY-ic');
  if (!seesAttribute(role, 'products', 'legal_name')) expect(raw, where).not.toContain('CANARY-ln');
  if (!seesAttribute(role, 'suppliers', 'email')) expect(raw, where).not.toContain('canary-em');
}

/** The product fields a GraphQL check asks for, with their selections. */
const PRODUCT_FIELDS: [name: string, selection: string][] = [
  ['reference', ''],
  ['gtin', ''],
  ['intrastat_code', ''],
  ['is_sales', ''],
  ['consumer_price', ''],
  ['legal_name', ' { en }'],
  ['name', ' { en }'],
  ['product_group', ' { id }'],
  ['preferred_supplier', ' { id }'],
];
const products = resources.find((r) => r.type === 'products')!;
const graphqlName = (name: string) =>
  name in products.attributes
    ? attributeField(products, name, products.attributes[name]!.column)
    : name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/** GraphQL: the role's products with the fields it sees; a field it does not see fails validation. */
async function checkGraphql(api: Rest, role: RandomRole, rows: Map<string, Map<number, any>>, token: string) {
  const visible = PRODUCT_FIELDS.filter(([name]) => sees(role, 'products', name));
  const selection = visible.map(([name, sub]) => `${graphqlName(name)}${sub}`).join(' ');
  const res = await api.env.gql(`{ products(first: 100) { totalCount nodes { id ${selection} } } }`, undefined, {
    token,
  });
  const where = `GraphQL ${selection} -> ${JSON.stringify(res.body).slice(0, 300)}`;
  expect(res.body.errors, where).toBeUndefined();
  const expected = [...rows.get('products')!.keys()].filter((id) => visibleRow(role, rows, 'products', id));
  expect(res.body.data!.products.totalCount, where).toBe(expected.length);
  for (const node of res.body.data!.products.nodes) {
    expect(visibleRow(role, rows, 'products', node.id), `${where}: products ${node.id}`).toBe(true);
    for (const [name, target] of [
      ['productGroup', 'product_groups'],
      ['preferredSupplier', 'suppliers'],
    ] as const)
      if (node[name])
        expect(visibleRow(role, rows, target, node[name].id), `${where}: ${name} ${node[name].id}`).toBe(true);
  }
  const raw = JSON.stringify(res.body);
  if (!seesAttribute(role, 'products', 'intrastat_code')) expect(raw, where).not.toContain('CANARY-ic');
  const hidden = PRODUCT_FIELDS.find(([name]) => !sees(role, 'products', name));
  if (hidden) {
    const refused = await api.env.gql(
      `{ products(first: 1) { nodes { id ${graphqlName(hidden[0])}${hidden[1]} } } }`,
      undefined,
      { token },
    );
    expect(refused.body.errors?.[0]?.extensions?.code, JSON.stringify(refused.body)).toBe('GRAPHQL_VALIDATION_FAILED');
  }
}

/**
 * The change log: admin changes canary fields no filter reads (so the rows' visibility stays
 * what the model says); the role's /changes after that holds only its types, visible rows and
 * fields, and no hidden canary.
 */
async function checkChanges(
  api: Rest,
  role: RandomRole,
  rows: Map<string, Map<number, any>>,
  token: string,
  run: number,
) {
  const head = (await api.prisma.change.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
  const send = (path: string, init: RequestInit) => api.env.t.request(path, init);
  const live = await SseStream.open(send, {
    query: `subscription { changes(after: "${head}") { type id changed before after } }`,
    token,
  });
  const productIds = [...rows.get('products')!.keys()];
  for (const id of [productIds[run % productIds.length]!, productIds[(run * 7) % productIds.length]!])
    await api.ok('PATCH', `/products/${id}`, {
      data: { type: 'products', id, attributes: { intrastat_code: `CANARY-ic-${id}-${run}` } },
    });
  const supplierIds = [...rows.get('suppliers')!.keys()];
  const supplier = supplierIds[run % supplierIds.length]!;
  await api.ok('PATCH', `/suppliers/${supplier}`, {
    data: { type: 'suppliers', id: supplier, attributes: { email: `canary-em-${supplier}-${run}@example.com` } },
  });
  const res = await api.request('GET', `/changes?after=${head}`, { token });
  const where = `/changes -> ${res.text.slice(0, 400)}`;
  expect(res.status, where).toBe(200);
  for (const entry of res.body.data) {
    const { resource_type: type, resource_id: id, changed, before, after } = entry.attributes;
    expect(role.rules.has(type), `${where}: ${type}`).toBe(true);
    expect(visibleRow(role, rows, type, id), `${where}: ${type} ${id}`).toBe(true);
    for (const field of [...changed, ...Object.keys(before ?? {}), ...Object.keys(after ?? {})])
      expect(sees(role, type, field), `${where}: ${type}.${field}`).toBe(true);
  }
  if (!seesAttribute(role, 'products', 'intrastat_code')) expect(res.text, where).not.toContain('CANARY-ic');
  if (!seesAttribute(role, 'suppliers', 'email')) expect(res.text, where).not.toContain('canary-em');
  // The subscription, from the same cursor: the same entries, as events.
  try {
    await live.until((s) => s.changes().length >= res.body.data.length, `${res.body.data.length} events`);
    const events = live.changes();
    const seen = JSON.stringify(events);
    expect(
      events.map((e: any) => [e.type.toLowerCase(), e.id]),
      seen,
    ).toEqual(res.body.data.map((e: any) => [e.attributes.resource_type, e.attributes.resource_id]));
    for (const e of events)
      for (const field of [...e.changed, ...Object.keys(e.before ?? {}), ...Object.keys(e.after ?? {})])
        expect(sees(role, e.type.toLowerCase(), field), `subscription: ${e.type}.${field}`).toBe(true);
    if (!seesAttribute(role, 'products', 'intrastat_code')) expect(seen).not.toContain('CANARY-ic');
    if (!seesAttribute(role, 'suppliers', 'email')) expect(seen).not.toContain('canary-em');
  } finally {
    await live.close();
  }
}
