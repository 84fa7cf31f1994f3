/**
 * Bulk mutations (`create<Types>`, `update<Types>`, `upsert<Types>`) on both databases: all or
 * nothing, in one transaction; an error names the row (`inputs[2].unitId`), and every bad row is
 * named in one answer (one error each, up to 100 and a last one saying how many more); rows
 * answered in input order; an upsert of rows already as given leaves no new version and no log
 * entry; every changed resource gets exactly one entry; a role sees only the bulk mutations its
 * rules allow; a good bulk write costs the statements it did before bad rows were all named.
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

/** What a good createProducts, updateProducts and upsertProducts of the test below cost, in statements. */
const STATEMENTS = { sqlite: [8, 5, 10], postgresql: [9, 6, 11] };

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

  /** Every error of an operation that must fail during execution, as [code, field]; nothing written. */
  async function refusedRows(query: string, variables: Record<string, unknown>) {
    const before = await counts();
    const res = await env.gql(query, variables);
    expect(res.body.errors, JSON.stringify(res.body)).toBeDefined();
    expect(Object.values(res.body.data ?? {}).every((v) => v === null)).toBe(true);
    expect(await counts()).toEqual(before);
    return res.body.errors!;
  }
  const named = (errors: { extensions?: Record<string, any> }[]) =>
    errors.map((e) => [e.extensions?.code, e.extensions?.field]);

  it('createProducts: every bad row is named in one answer, in row order, and nothing is written', async () => {
    const taken = (await ok(CREATE, { inputs: [{ reference: unique('A'), unitId: 1 }] })).createProducts[0].reference;
    const gtin = withCheckDigit(`871${String(Date.now()).slice(-9)}`);
    const errors = await refusedRows(CREATE, {
      inputs: [
        { reference: unique('A'), unitId: 1 },
        { reference: unique('A'), unitId: 1, gtin: '12345' },
        { reference: unique('A'), unitId: 987654 },
        { reference: taken, unitId: 1 },
        { reference: unique('A'), unitId: 987656, consumerPrice: -1 },
        { reference: unique('A'), unitId: 987655 },
        { reference: unique('A'), unitId: 1, gtin },
        { reference: unique('A'), unitId: 1, gtin },
      ],
    });
    expect(named(errors)).toEqual([
      ['BAD_USER_INPUT', 'inputs[1].gtin'],
      ['NOT_FOUND', 'inputs[2].unitId'],
      ['CONFLICT', 'inputs[3].reference'],
      ['BAD_USER_INPUT', 'inputs[4].consumerPrice'],
      ['NOT_FOUND', 'inputs[5].unitId'],
      ['CONFLICT', 'inputs[7].gtin'],
    ]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^inputs\[1\]\.gtin must be a GTIN/),
      expect.stringMatching(/987654/),
      expect.stringMatching(/^inputs\[3\]\.reference must be unique/),
      expect.stringMatching(/^inputs\[4\]\.consumerPrice must not be negative/),
      expect.stringMatching(/987655/),
      expect.stringMatching(/^inputs\[7\]\.gtin must be unique/),
    ]);
    expect(errors.every((e) => e.path?.[0] === 'createProducts')).toBe(true);
  });

  it('a row linking to what does not exist costs the statements of any bad row: the links are asked for once', async () => {
    /** The fewest statements of three refused runs (a run may also check the token again: one more, never fewer). */
    const fewest = async (field: string, bad: Record<string, unknown>) => {
      const counts = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const inputs = [
          { reference: unique('L'), unitId: 1 },
          { reference: unique('L'), unitId: 1, ...bad },
        ];
        const res = await env.gql(CREATE, { inputs });
        expect(res.body.errors?.map((e) => e.extensions?.field)).toEqual([`inputs[1].${field}`]);
        counts.push(res.statements);
      }
      return Math.min(...counts);
    };
    const missingUnit = await fewest('unitId', { unitId: 987657 });
    const badGtin = await fewest('gtin', { gtin: '12345' });
    expect(missingUnit).toBe(badGtin);
  });

  it('a role that reads every unit: a link to a unit that does not exist is not found, in bulk and alone', async () => {
    const db = env.database.db;
    await applyRoles(db.prisma, db.provider, ROLES, 'test');
    const client = await createClient(db.prisma, `links-${provider}`, ['read', 'write'], 'active_only');
    const token = (await getTokens(env.t, client)).access_token;
    const before = await counts();
    const bulk = await env.gql(
      CREATE,
      {
        inputs: [
          { reference: unique('U'), unitId: 1, isActive: true },
          { reference: unique('U'), unitId: 987658, isActive: true },
          { reference: unique('U'), unitId: 987659, isActive: true },
        ],
      },
      { token },
    );
    expect(named(bulk.body.errors ?? []), JSON.stringify(bulk.body)).toEqual([
      ['NOT_FOUND', 'inputs[1].unitId'],
      ['NOT_FOUND', 'inputs[2].unitId'],
    ]);
    const alone = await env.gql(
      'mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }',
      { input: { reference: unique('U'), unitId: 987658, isActive: true } },
      { token },
    );
    expect(alone.body.errors?.[0]?.extensions, JSON.stringify(alone.body)).toMatchObject({
      code: 'NOT_FOUND',
      field: 'unitId',
    });
    expect(await counts()).toEqual(before);
  });

  it('updateProducts and upsertProducts: every bad row in one answer', async () => {
    const rows = (await ok(CREATE, { inputs: [1, 2, 3, 4].map(() => ({ reference: unique('V'), unitId: 1 })) }))
      .createProducts as { id: number; reference: string }[];
    const updates = await refusedRows(UPDATE, {
      updates: [
        { id: rows[0]!.id, expectedVersion: 2, input: { consumerPrice: 1 } },
        { id: rows[1]!.id, input: { consumerPrice: 1 } },
        { id: 987654, input: {} },
        { id: rows[2]!.id, input: { consumerPrice: -2 } },
        { id: rows[1]!.id, input: {} },
        { id: rows[3]!.id, input: { reference: rows[1]!.reference } },
      ],
    });
    expect(named(updates)).toEqual([
      ['CONFLICT', 'updates[0]'],
      ['NOT_FOUND', 'updates[2].id'],
      ['BAD_USER_INPUT', 'updates[3].input.consumerPrice'],
      ['BAD_USER_INPUT', 'updates[4].id'],
      ['CONFLICT', 'updates[5].input.reference'],
    ]);
    expect(updates[0]!.extensions?.currentVersion).toBe(1);
    const upserts = await refusedRows(UPSERT, {
      inputs: [
        { reference: rows[0]!.reference, unitId: 1, consumerPrice: 5 },
        { reference: unique('V'), unitId: 1, gtin: '1' },
        { reference: rows[0]!.reference, unitId: 1 },
        { reference: unique('V'), unitId: 987654 },
        { reference: unique('V'), unitId: 1, gtin: 'x' },
      ],
    });
    expect(named(upserts)).toEqual([
      ['BAD_USER_INPUT', 'inputs[1].gtin'],
      ['BAD_USER_INPUT', 'inputs[2].reference'],
      ['NOT_FOUND', 'inputs[3].unitId'],
      ['BAD_USER_INPUT', 'inputs[4].gtin'],
    ]);
  });

  it('rows refused by GraphQL coercion (a key left out) are each named too', async () => {
    const res = await env.gql(UPSERT, {
      inputs: [{ unitId: 1 }, { reference: unique('C'), unitId: 1 }, { unitId: 1 }],
    });
    expect(res.body.errors?.map((e) => e.message)).toEqual([
      expect.stringMatching(/^inputs\[0\]\.reference .*is required/),
      expect.stringMatching(/^inputs\[2\]\.reference .*is required/),
    ]);
  });

  it('unique values the database refuses as rows are written: every row that meets one is named', async () => {
    const gtins = [1, 2, 3].map((n) =>
      withCheckDigit(`872${String(counter + n).padStart(4, '0')}${String(Date.now()).slice(-5)}`),
    );
    const rows = (await ok(CREATE, { inputs: gtins.map((gtin) => ({ reference: unique('W'), unitId: 1, gtin })) }))
      .createProducts as { id: number; reference: string }[];
    // Each update is good on its own: only writing it meets the value another row holds.
    const errors = await refusedRows(UPDATE, {
      updates: [
        { id: rows[0]!.id, input: { gtin: gtins[1] } },
        { id: rows[1]!.id, input: { consumerPrice: 1 } },
        { id: rows[2]!.id, input: { reference: rows[0]!.reference } },
      ],
    });
    expect(named(errors)).toEqual([
      ['CONFLICT', 'updates[0].input.gtin'],
      ['CONFLICT', 'updates[2].input.reference'],
    ]);
    // A value moved off a row is free for a row written after it.
    const moved = await ok(UPDATE, {
      updates: [
        { id: rows[1]!.id, input: { gtin: null } },
        { id: rows[0]!.id, input: { gtin: gtins[1] } },
      ],
    });
    expect(moved.updateProducts.map((p: any) => p.version)).toEqual([2, 2]);
  });

  it('past 100 bad rows: 100 named, and one more error says how many were left out', async () => {
    const inputs = Array.from({ length: 130 }, (_, i) => ({ reference: unique('X'), unitId: 1, gtin: `${i}` }));
    const errors = await refusedRows(CREATE, { inputs });
    expect(errors).toHaveLength(101);
    expect(errors[99]!.extensions?.field).toBe('inputs[99].gtin');
    expect(errors[100]).toMatchObject({
      message: '30 more errors are not listed: an answer lists at most 100',
      extensions: { code: 'ERRORS_OMITTED', omitted: 30 },
    });
  });

  it('a good bulk write costs the statements it did', async () => {
    /**
     * The fewest statements of three runs: the token is trusted from memory for a few seconds
     * only, so on a busy machine a run may also check it again (one more, never fewer).
     */
    const fewest = async (run: (attempt: number) => Promise<{ statements: number; body: { errors?: unknown } }>) => {
      const counts = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const res = await run(attempt);
        expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
        counts.push(res.statements);
      }
      return Math.min(...counts);
    };
    const refs = [1, 2, 3].map(() => unique('S'));
    const create = await fewest((attempt) =>
      env.gql(CREATE, {
        inputs: [1, 2, 3].map(() => ({ reference: attempt ? unique('S') : refs.pop(), unitId: 1, consumerPrice: 1 })),
      }),
    );
    const rows = (await ok(CREATE, { inputs: [1, 2, 3].map(() => ({ reference: unique('S'), unitId: 1 })) }))
      .createProducts as { id: number; reference: string }[];
    const update = await fewest((attempt) =>
      env.gql(UPDATE, { updates: rows.map(({ id }) => ({ id, input: { consumerPrice: attempt + 2 } })) }),
    );
    const upsert = await fewest((attempt) =>
      env.gql(UPSERT, {
        inputs: [
          ...rows.map(({ reference }) => ({ reference, unitId: 1, consumerPrice: attempt + 10 })),
          { reference: unique('S'), unitId: 1 },
        ],
      }),
    );
    expect([create, update, upsert]).toEqual(STATEMENTS[provider]);
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
