/**
 * Versions and optimistic concurrency in GraphQL: `version: Int!` on every type, and
 * `expectedVersion` on the mutations that change an existing resource, which refuse a stale one
 * with CONFLICT and `extensions.currentVersion`, writing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/resources/registry.ts';
import { typeName } from '../../src/resources/names.ts';
import { graphqlEnv, operationExpectations, type GraphQLTestEnv } from '../support/graphql.ts';
import { providers } from '../support/databases.ts';

describe.each(providers)('GraphQL versions on %s', (provider) => {
  let env: GraphQLTestEnv;
  let counter = 0;
  const { ok, refused } = operationExpectations(() => env);

  beforeAll(async () => {
    env = await graphqlEnv(provider);
  });
  afterAll(async () => env?.database.cleanup());

  const newProduct = async (): Promise<{ id: number; version: number }> =>
    (
      await ok(
        `mutation { createProduct(input: { reference: "V-${provider}-${++counter}", unitId: 1 }) { id version } }`,
      )
    ).createProduct;
  const rename = (id: number, name: string, expectedVersion?: number) =>
    env.gql(
      `mutation($id: Int!, $v: Int, $name: String) { updateProduct(id: $id, expectedVersion: $v, input: { name: { en: $name } }) { version name { en } } }`,
      {
        id,
        v: expectedVersion,
        name,
      },
    );

  it('every object type has version: Int!', async () => {
    const { __schema } = await ok('{ __schema { types { name fields { name type { kind ofType { name } } } } } }');
    for (const resource of resources) {
      const type = __schema.types.find((t: { name: string }) => t.name === typeName(resource.type));
      const field = type.fields.find((f: { name: string }) => f.name === 'version');
      expect(field?.type, `${type.name}.version`).toEqual({ kind: 'NON_NULL', ofType: { name: 'Int' } });
    }
  });

  it('two clients with the same version: the first update wins, the second is a CONFLICT with currentVersion and writes nothing', async () => {
    const product = await newProduct();
    expect(product.version).toBe(1);
    const first = await rename(product.id, 'first', product.version);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data!.updateProduct).toEqual({ version: 2, name: { en: 'first' } });
    const error = await refused(
      `mutation { updateProduct(id: ${product.id}, expectedVersion: ${product.version}, input: { name: { en: "second" } }) { version } }`,
      undefined,
      'CONFLICT',
    );
    expect(error.extensions?.currentVersion).toBe(2);
    expect(error.message).toMatch(new RegExp(`products ${product.id} is at version 2, not version 1`));
    expect((await ok(`{ product(id: ${product.id}) { version name { en } } }`)).product).toEqual({
      version: 2,
      name: { en: 'first' },
    });
  });

  it('ten updates at once with the same expectedVersion: one succeeds, nine are CONFLICT', async () => {
    const product = await newProduct();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) => rename(product.id, `writer ${n}`, product.version)),
    );
    const codes = answers.map((a) => a.body.errors?.[0]?.extensions?.code ?? 'OK').sort();
    expect(codes).toEqual([...Array(9).fill('CONFLICT'), 'OK']);
    const winner = answers.find((a) => !a.body.errors)!.body.data!.updateProduct;
    expect((await ok(`{ product(id: ${product.id}) { version name { en } } }`)).product).toEqual(winner);
  });

  it('a to-many relationship change: the first wins, the second is a CONFLICT and adds nothing', async () => {
    const created = (
      await ok(
        `mutation { createCustomer(input: { reference: "VC-${provider}-${++counter}", name: "Versioned" }) { id version } }`,
      )
    ).createCustomer;
    const [u1, u2] = (await ok('{ users(first: 2) { nodes { id } } }')).users.nodes.map((u: { id: number }) => u.id);
    const add = (user: number) =>
      `mutation { updateCustomer(id: ${created.id}, expectedVersion: ${created.version}, input: { commercialResolveResponsibleUsers: { add: [${user}] } }) { version commercialResolveResponsibleUsers { id } } }`;
    expect((await ok(add(u1))).updateCustomer).toEqual({ version: 2, commercialResolveResponsibleUsers: [{ id: u1 }] });
    expect((await refused(add(u2), undefined, 'CONFLICT')).extensions?.currentVersion).toBe(2);
    expect(
      (await ok(`{ customer(id: ${created.id}) { commercialResolveResponsibleUsers { id } } }`)).customer
        .commercialResolveResponsibleUsers,
    ).toEqual([{ id: u1 }]);
  });

  it("bills of material: the structure mutations check the structure's version, createProductStructure the product's", async () => {
    const owner = await newProduct();
    const component = await newProduct();
    const stale = `expectedVersion: ${owner.version + 5}`;
    await refused(
      `mutation { createProductStructure(productId: ${owner.id}, ${stale}, input: { quantity: 1 }) { id } }`,
      undefined,
      'CONFLICT',
    );
    const structure = (
      await ok(
        `mutation { createProductStructure(productId: ${owner.id}, expectedVersion: ${owner.version}, input: { quantity: 1 }) { id version } }`,
      )
    ).createProductStructure;
    expect((await ok(`{ product(id: ${owner.id}) { version productStructure { id } } }`)).product).toEqual({
      version: owner.version + 1,
      productStructure: { id: structure.id },
    });
    const items = `[{ productId: ${component.id}, netQuantity: 1 }]`;
    const added = (
      await ok(
        `mutation { addProductStructureItems(structureId: ${structure.id}, expectedVersion: 1, items: ${items}) { version items { id } } }`,
      )
    ).addProductStructureItems;
    expect(added.version).toBe(2);
    for (const mutation of [
      `addProductStructureItems(structureId: ${structure.id}, expectedVersion: 1, items: ${items})`,
      `replaceProductStructureItems(structureId: ${structure.id}, expectedVersion: 1, items: [])`,
      `removeProductStructureItems(structureId: ${structure.id}, expectedVersion: 1, itemIds: [${added.items[0].id}])`,
    ]) {
      expect((await refused(`mutation { ${mutation} { id } }`, undefined, 'CONFLICT')).extensions?.currentVersion).toBe(
        2,
      );
    }
    expect((await ok(`{ productStructure(id: ${structure.id}) { version items { id } } }`)).productStructure).toEqual(
      added,
    );
  });

  it('without expectedVersion a write goes ahead; a missing resource is NOT_FOUND whatever the version', async () => {
    const product = await newProduct();
    expect((await rename(product.id, 'a')).body.data!.updateProduct.version).toBe(2);
    expect((await rename(product.id, 'b', null as never)).body.data!.updateProduct.version).toBe(3);
    await refused(
      `mutation { updateProduct(id: 987654321, expectedVersion: 1, input: {}) { id } }`,
      undefined,
      'NOT_FOUND',
    );
  });
});
