/**
 * Bulk mutations (`create<Types>`, `update<Types>`, `upsert<Types>`) on both databases: all or
 * nothing, in one transaction; an error names the row (`inputs[2].unitId`); rows answered in input
 * order; an upsert of rows already as given leaves no new version and no log entry; every changed
 * resource gets exactly one entry; a role sees only the bulk mutations its rules allow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withCheckDigit } from '../../src/data/formats.ts';
import { applyRoles } from '../../src/permissions/store.ts';
import { createClient } from '../../src/auth/clients.ts';
import { providers } from '../support/databases.ts';
import { graphqlEnv, operationExpectations, type GraphQLTestEnv } from '../support/graphql.ts';
import { getTokens } from '../support/oauth.ts';

/** The roles of the tests below, applied whole by each (applying replaces every role). */
const ROLES = {
  roles: {
    bulk_pricing: { products: { read: {}, update: { fields: ['consumer_price'] } } },
    active_only: {
      products: {
        read: { where: { is_active: { equals: true } } },
        create: {},
        update: { where: { is_active: { equals: true } } },
      },
      units: { read: {} },
    },
  },
};

describe.each(providers)('GraphQL bulk mutations on %s', (provider) => {
  let env: GraphQLTestEnv;
  let counter = 0;
  const unique = (prefix: string) => `${prefix}-${provider}-${++counter}`;
  const { ok, refused } = operationExpectations(() => env);
  const prisma = () => env.database.db.prisma as any;
  const counts = async () => ({
    products: await prisma().product.count(),
    changes: await prisma().change.count(),
  });

  beforeAll(async () => {
    env = await graphqlEnv(provider);
  });
  afterAll(() => env?.database.cleanup());

  const CREATE =
    'mutation($inputs: [CreateProductInput!]!) { createProducts(inputs: $inputs) { id reference version unit { id } } }';
  const UPDATE =
    'mutation($updates: [UpdateProductsRow!]!) { updateProducts(updates: $updates) { id version consumerPrice } }';
  const UPSERT =
    'mutation($inputs: [CreateProductInput!]!) { upsertProducts(inputs: $inputs) { outcome product { id reference version consumerPrice } } }';

  it('createProducts: every row, in input order, each with one log entry', async () => {
    const before = await counts();
    const refs = [unique('B'), unique('B'), unique('B')];
    const data = await ok(CREATE, { inputs: refs.map((reference) => ({ reference, unitId: 1 })) });
    expect(data.createProducts.map((p: any) => p.reference)).toEqual(refs);
    expect(data.createProducts.every((p: any) => p.version === 1 && p.unit.id === 1)).toBe(true);
    const after = await counts();
    expect(after.products - before.products).toBe(3);
    expect(after.changes - before.changes).toBe(3);
  });

  it('createProducts: one bad row writes nothing, and the error names it', async () => {
    const before = await counts();
    const inputs = [
      { reference: unique('B'), unitId: 1 },
      { reference: unique('B'), unitId: 1 },
      { reference: unique('B'), unitId: 987654 },
      { reference: unique('B'), unitId: 1 },
    ];
    const missing = await refused(CREATE, { inputs }, 'NOT_FOUND', 'inputs[2].unitId');
    expect(missing.message).toMatch(/987654/);
    const invalid = await refused(
      CREATE,
      {
        inputs: [
          { reference: unique('B'), unitId: 1 },
          { reference: unique('B'), unitId: 1, gtin: '12345' },
        ],
      },
      'BAD_USER_INPUT',
      'inputs[1].gtin',
    );
    expect(invalid.message).toMatch(/^inputs\[1\]\.gtin must be a GTIN/);
    const taken = (await ok(CREATE, { inputs: [{ reference: unique('B'), unitId: 1 }] })).createProducts[0].reference;
    const duplicate = await refused(
      CREATE,
      {
        inputs: [
          { reference: unique('B'), unitId: 1 },
          { reference: taken, unitId: 1 },
        ],
      },
      'CONFLICT',
    );
    expect(duplicate.message).toMatch(/^inputs\[1\]\.reference must be unique/);
    // Two new rows with one GTIN: the later one is named (the rows are inserted together).
    const gtin = withCheckDigit(`7${String(Date.now()).slice(-11)}`);
    const twice = await refused(
      CREATE,
      {
        inputs: [
          { reference: unique('B'), unitId: 1 },
          { reference: unique('B'), unitId: 1, gtin },
          { reference: unique('B'), unitId: 1, gtin },
        ],
      },
      'CONFLICT',
    );
    expect(twice.message).toMatch(/^inputs\[2\]\.gtin must be unique/);
    const after = await counts();
    expect(after.products - before.products).toBe(1);
    expect(after.changes - before.changes).toBe(1);
  });

  it('updateProducts: each row at its expected version, all or nothing', async () => {
    const created = (await ok(CREATE, { inputs: [1, 2, 3].map(() => ({ reference: unique('U'), unitId: 1 })) }))
      .createProducts as { id: number; version: number }[];
    const updates = created.map((p, i) => ({ id: p.id, expectedVersion: 1, input: { consumerPrice: `${i + 1}.50` } }));
    const data = await ok(UPDATE, { updates });
    expect(data.updateProducts).toEqual(created.map((p, i) => ({ id: p.id, version: 2, consumerPrice: i + 1.5 })));
    const before = await counts();
    // One row at a version it no longer has: nothing is written.
    const stale = await refused(
      UPDATE,
      {
        updates: [
          { id: created[0]!.id, expectedVersion: 2, input: { consumerPrice: '9' } },
          { id: created[1]!.id, expectedVersion: 1, input: { consumerPrice: '9' } },
        ],
      },
      'CONFLICT',
    );
    expect(stale.message).toMatch(/^updates\[1\]/);
    expect(stale.extensions?.currentVersion).toBe(2);
    const negative = await refused(
      UPDATE,
      { updates: [{ id: created[2]!.id, input: { consumerPrice: '-1' } }] },
      'BAD_USER_INPUT',
      'updates[0].input.consumerPrice',
    );
    expect(negative.message).toMatch(/must not be negative/);
    await refused(
      UPDATE,
      {
        updates: [
          { id: created[2]!.id, input: {} },
          { id: 987654, input: {} },
        ],
      },
      'NOT_FOUND',
      'updates[1].id',
    );
    const repeated = await refused(
      UPDATE,
      {
        updates: [
          { id: created[2]!.id, input: {} },
          { id: created[2]!.id, input: {} },
        ],
      },
      'BAD_USER_INPUT',
      'updates[1].id',
    );
    expect(repeated.message).toMatch(/repeats updates\[0\]\.id/);
    expect(await counts()).toEqual(before);
    const reread = await ok(
      `{ products(where: { id: { in: [${created.map((p) => p.id)}] } }, orderBy: [ID_ASC]) { nodes { version consumerPrice } } }`,
    );
    expect(reread.products.nodes).toEqual(created.map((_p, i) => ({ version: 2, consumerPrice: i + 1.5 })));
  });

  it('upsertProducts: created, updated and unchanged rows by reference; unchanged ones leave no version and no entry', async () => {
    const [kept, changed] = (
      await ok(CREATE, {
        inputs: [
          { reference: unique('K'), unitId: 1, consumerPrice: '2' },
          { reference: unique('K'), unitId: 1, consumerPrice: '2' },
        ],
      })
    ).createProducts as { id: number; reference: string }[];
    const before = await counts();
    const fresh = unique('K');
    const data = await ok(UPSERT, {
      inputs: [
        { reference: kept!.reference, unitId: 1, consumerPrice: '2.00' },
        { reference: fresh, unitId: 1, gtin: withCheckDigit(`873${String(counter).padStart(9, '0')}`) },
        { reference: changed!.reference, unitId: 1, consumerPrice: '3' },
      ],
    });
    expect(data.upsertProducts.map((r: any) => [r.outcome, r.product.reference, r.product.version])).toEqual([
      ['UNCHANGED', kept!.reference, 1],
      ['CREATED', fresh, 1],
      ['UPDATED', changed!.reference, 2],
    ]);
    const after = await counts();
    expect(after.products - before.products).toBe(1);
    expect(after.changes - before.changes).toBe(2);
    // The same call again changes nothing at all.
    const again = await ok(UPSERT, {
      inputs: [
        { reference: kept!.reference, unitId: 1, consumerPrice: '2' },
        { reference: changed!.reference, unitId: 1, consumerPrice: '3' },
      ],
    });
    expect(again.upsertProducts.map((r: any) => r.outcome)).toEqual(['UNCHANGED', 'UNCHANGED']);
    expect(await counts()).toEqual(after);
  });

  it('upsertProducts: a GTIN moved off an existing row is free for a new row of the same call', async () => {
    const gtin = withCheckDigit(`874${String(Date.now()).slice(-9)}`);
    const [holder] = (await ok(CREATE, { inputs: [{ reference: unique('M'), unitId: 1, gtin }] })).createProducts as {
      reference: string;
    }[];
    const fresh = unique('M');
    const data = await ok(UPSERT, {
      inputs: [
        { reference: fresh, unitId: 1, gtin },
        { reference: holder!.reference, unitId: 1, gtin: null },
      ],
    });
    expect(data.upsertProducts.map((r: any) => [r.outcome, r.product.reference])).toEqual([
      ['CREATED', fresh],
      ['UPDATED', holder!.reference],
    ]);
  });

  it('upsertProducts: a row without its key, or a key given twice, is named and nothing is written', async () => {
    const before = await counts();
    await refused(UPSERT, { inputs: [{ reference: unique('K'), unitId: 1 }, { unitId: 1 }] }, 'BAD_USER_INPUT');
    const twice = unique('K');
    const repeated = await refused(
      UPSERT,
      {
        inputs: [
          { reference: twice, unitId: 1 },
          { reference: twice, unitId: 1 },
        ],
      },
      'BAD_USER_INPUT',
      'inputs[1].reference',
    );
    expect(repeated.message).toMatch(/repeats inputs\[0\]\.reference/);
    expect(await counts()).toEqual(before);
  });

  it('refuses more than 1,000 rows a call', async () => {
    const inputs = Array.from({ length: 1001 }, (_, i) => ({ reference: `over-${provider}-${i}`, unitId: 1 }));
    const before = await counts();
    const error = await refused(CREATE, { inputs }, 'BAD_USER_INPUT');
    expect(error.message).toMatch(/holds 1001 items: a list takes at most 1000/);
    expect(await counts()).toEqual(before);
  });

  it('a list limit of a bulk mutation in one operation is not lent to another operation of the document', async () => {
    const document = `mutation M($x: [CreateBrandInput!]!) { ...F }
      fragment F on Mutation { createBrands(inputs: $x) { id } }
      query Q($x: [Int!]) { products(where: { id: { in: $x } }) { totalCount } }`;
    const res = await env.t.request('/graphql', {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        query: document,
        operationName: 'Q',
        variables: { x: Array.from({ length: 101 }, (_, i) => i + 1) },
      }),
    });
    const body = await res.json();
    expect(body.errors?.[0]?.message, JSON.stringify(body)).toMatch(/holds 101 items: a list takes at most 100/);
  });

  it('an upsert whose key a row outside the role holds is refused as a create would be, naming no id', async () => {
    const db = env.database.db;
    await applyRoles(db.prisma, db.provider, ROLES, 'test');
    const client = await createClient(db.prisma, `active-${provider}`, ['read', 'write'], 'active_only');
    const token = (await getTokens(env.t, client)).access_token;
    const reference = unique('H');
    const [hidden] = (await ok(CREATE, { inputs: [{ reference, unitId: 1, isActive: false }] })).createProducts;
    const before = await counts();
    const res = await env.gql(
      UPSERT.replace(' version consumerPrice', ''),
      { inputs: [{ reference, unitId: 1 }] },
      { token },
    );
    const [error] = res.body.errors ?? [];
    expect(error?.extensions?.code, JSON.stringify(res.body)).toBe('CONFLICT');
    expect(error!.message).not.toContain(String(hidden.id));
    expect(await counts()).toEqual(before);
    // Updating it by id: not found, as a row that does not exist.
    const update = await env.gql(UPDATE, { updates: [{ id: hidden.id, input: { consumerPrice: '1' } }] }, { token });
    expect(update.body.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', field: 'updates[0].id' });
    expect(await counts()).toEqual(before);
  });

  it('a role sees the bulk mutations its rules allow, and its field rules hold in every row', async () => {
    const db = env.database.db;
    await applyRoles(db.prisma, db.provider, ROLES, 'test');
    const client = await createClient(db.prisma, `bulk-${provider}`, ['read', 'write'], 'bulk_pricing');
    const token = (await getTokens(env.t, client)).access_token;
    const schema = await env.gql('{ __schema { mutationType { fields { name } } } }', undefined, { token });
    const names = schema.body.data!.__schema.mutationType.fields.map((f: { name: string }) => f.name);
    expect(names).toContain('updateProducts');
    expect(names).not.toContain('createProducts');
    expect(names).not.toContain('upsertProducts');
    const [id] = (await ok(CREATE, { inputs: [{ reference: unique('R'), unitId: 1 }] })).createProducts.map(
      (p: any) => p.id,
    );
    const refusedName = await env.gql(
      'mutation($u: [UpdateProductsRow!]!) { updateProducts(updates: $u) { id } }',
      {
        u: [
          { id, input: { consumerPrice: '4' } },
          { id: id + 0, input: { isActive: false } },
        ],
      },
      { token },
    );
    expect(refusedName.body.errors?.[0]?.message).toMatch(/isActive/);
    const allowed = await env.gql(
      'mutation($u: [UpdateProductsRow!]!) { updateProducts(updates: $u) { id consumerPrice } }',
      { u: [{ id, input: { consumerPrice: '4' } }] },
      { token },
    );
    expect(allowed.body).toEqual({ data: { updateProducts: [{ id, consumerPrice: 4 }] } });
  });
});
