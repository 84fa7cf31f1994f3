/**
 * GraphQL reads on both providers (graphql.md "Reading"): nested reads whose SQL statement count
 * is bounded by their depth, never by their rows; Relay connections; filters and order;
 * localized text; exact decimals; reverse links; every field of every type reached through every
 * link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProductsWithStructuresDocument } from './generated/graphql.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { providers } from '../support/databases.ts';
import { schema } from '../../src/graphql/schema.ts';
import { everyValue, linksOf, RESOURCE_TYPES, rootFieldsOf, type Link } from '../support/selections.ts';
import type { GraphQLObjectType } from 'graphql';

describe.each(providers)('GraphQL reads on %s', (provider) => {
  let env: GraphQLTestEnv;
  /** Products that have a structure, in id order: the first 100 (a list argument takes at most 100 items). */
  let withStructures: number[];
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    withStructures = (
      await env.database.db.prisma.productStructure.findMany({
        select: { product_id: true },
        orderBy: { product_id: 'asc' },
        take: 100,
      })
    ).map((s) => s.product_id);
    await env.gql('{ __typename }'); // the token is validated once, then trusted from memory
  });
  afterAll(async () => env?.database.cleanup());
  /**
   * The token validated just before a request whose statements are counted: on PostgreSQL a
   * validated token is trusted only 500 ms until the app hears revocations (src/auth/tokens.ts),
   * and on a busy machine the request after a slow set-up would validate it again (one statement more).
   */
  const trustedToken = () => env.gql('{ __typename }');
  const prisma = () => env.database.db.prisma;

  describe('statements are bounded by depth, not rows', () => {
    it.each([5, 50, 100])(
      'products with unit, group, structure, items, item product and unit: the same 7 statements for first: %i',
      async (first) => {
        await trustedToken();
        const { status, body, statements } = await env.gql(ProductsWithStructuresDocument, {
          first,
          filter: { idIn: withStructures },
        });
        expect(status).toBe(200);
        expect(body.errors).toBeUndefined();
        const nodes = body.data!.products.nodes;
        expect(nodes).toHaveLength(first);
        expect(
          nodes.every(
            (p) =>
              p.productStructure!.items.length > 0 &&
              p.productStructure!.items.every((i) => i.product.reference && i.unit),
          ),
        ).toBe(true);
        // products, units, groups, structures, items, item products, item units
        expect(statements).toBe(7);
      },
    );

    const customers = `query($first: Int) { customers(first: $first) { nodes {
      reference customerType { reference } language { alpha2Code } currency { alpha3Code } accountManager { username }
      customerServiceManager { username } address { city } commercialResolveResponsibleUsers { username }
      informOnComplaintUsers { username } informOnComplaintFunctions { reference }
    } } }`;
    it.each([5, 50, 100])('customers with every relationship: the same 7 statements for first: %i', async (first) => {
      await trustedToken();
      const { body, statements } = await env.gql(customers, { first });
      expect(body.errors).toBeUndefined();
      const nodes = body.data!.customers.nodes;
      expect(nodes).toHaveLength(first);
      expect(
        nodes.some((c: any) => c.commercialResolveResponsibleUsers.length > 0 && c.informOnComplaintUsers.length > 0),
      ).toBe(true);
      // customers (with the ids of their join-table links); customer types, languages,
      // currencies, addresses, functions; and users once for the two managers and both user lists
      expect(statements).toBe(7);
    });

    const suppliers = `query($first: Int) { suppliers(first: $first) { nodes {
      reference types { id } currency { alpha3Code } buyer { username } keyUser { username } address { city }
      evaluationRoleUsers { createdDate } commercialResolveResponsibleUsers { username } informOnComplaintUsers { username }
    } } }`;
    it('suppliers with every relationship: the same 6 statements for first: 5, 50 and 100', async () => {
      // The demo data has 50 suppliers: add more, linked like the first one, to fill a page of 100.
      const { body: first } =
        await env.gql(`{ supplier(id: 1) { currency { id } buyer { id } keyUser { id } address { id }
        types { id } commercialResolveResponsibleUsers { id } informOnComplaintUsers { id } } }`);
      const model = first.data!.supplier;
      const ids = (list: { id: number }[]) => ({ set: list.map((x) => x.id) });
      for (let i = 0; i < 50; i++) {
        const { body } = await env.gql(
          `mutation($input: CreateSupplierInput!) { createSupplier(input: $input) { id } }`,
          {
            input: {
              reference: `STATEMENTS-${i}`,
              name: `Statement counting supplier ${i}`,
              currencyId: model.currency.id,
              buyerId: model.buyer?.id,
              keyUserId: model.keyUser?.id,
              addressId: model.address?.id,
              types: ids(model.types),
              commercialResolveResponsibleUsers: ids(model.commercialResolveResponsibleUsers),
              informOnComplaintUsers: ids(model.informOnComplaintUsers),
            },
          },
        );
        expect(body.errors).toBeUndefined();
      }
      const counts = [];
      for (const first of [5, 50, 100]) {
        const { body, statements } = await env.gql(suppliers, { first });
        expect(body.errors).toBeUndefined();
        expect(body.data!.suppliers.nodes).toHaveLength(first);
        counts.push(statements);
      }
      // suppliers (with the ids of their join-table links); supplier types, currencies, addresses,
      // evaluation role users; and users once for buyer, key user and both user lists
      expect(counts).toEqual([6, 6, 6]);
    });

    it('reverse links page per parent in one statement each, and count only when asked', async () => {
      const without = await env.gql(
        '{ products(first: 50) { nodes { id usedIn(first: 2) { nodes { id } pageInfo { hasNextPage } } } } }',
      );
      const withTotal = await env.gql(
        '{ products(first: 50) { nodes { id usedIn(first: 2) { totalCount nodes { id } pageInfo { hasNextPage } } } } }',
      );
      expect(without.statements).toBe(2);
      expect(withTotal.statements).toBe(3);
      for (const product of withTotal.body.data!.products.nodes) {
        const used = await prisma().productStructureItem.count({ where: { product_id: product.id } });
        expect(product.usedIn.totalCount).toBe(used);
        expect(product.usedIn.nodes).toHaveLength(Math.min(2, used));
        expect(product.usedIn.pageInfo.hasNextPage).toBe(used > 2);
      }
    });
  });

  describe('every field of every type, reached through every link', () => {
    /**
     * Per resource type with a root list: one document with all its links (relationships, owner
     * links, reverse links), and one per bill-of-material field, whose lines cost more.
     */
    const documents = [...RESOURCE_TYPES.keys()].flatMap((name) => {
      const type = schema.getType(name) as GraphQLObjectType;
      const list = rootFieldsOf(schema, type).list?.name;
      if (!list) return [];
      const links = linksOf(type);
      const lines = links.filter((l) => l.kind === 'lines');
      return [
        { list, first: 10, links: links.filter((l) => l.kind !== 'lines') },
        // Two products' bills of material keep within the complexity limit.
        ...lines.map((l) => ({ list, first: 2, links: [l] })),
      ];
    });
    /** A field type's named type: `[Product!]!` -> `Product`. */
    const getName = (type: unknown) => String(type).replace(/[[\]!]/g, '');
    /** The link's selection with every value of the types it reaches. */
    const reach = (link: Link) => {
      if (link.kind === 'connection') return `${link.field.name}(first: 5) { nodes ${everyValue(link.type)} }`;
      if (link.kind !== 'lines') return `${link.field.name} ${everyValue(link.type)}`;
      const fields = Object.values(link.lines.getFields()).filter((f) => RESOURCE_TYPES.has(getName(f.type)));
      return `${link.field.name} { ${fields.map((f) => `${f.name} ${everyValue(schema.getType(getName(f.type)) as GraphQLObjectType)}`).join(' ')} }`;
    };
    /** The rows a link reached, by their type, as the answer holds them. */
    const reached = (link: Link, value: any): [type: string, node: any][] => {
      if (value === null || value === undefined) return [];
      if (link.kind === 'connection') return value.nodes.map((n: any) => [link.type.name, n]);
      if (link.kind !== 'lines') return [value].flat().map((n: any) => [link.type.name, n]);
      const fields = link.lines.getFields();
      return value.flatMap((line: any) =>
        Object.entries(line).flatMap(([field, n]) =>
          [n].flat().map((one): [string, any] => [getName(fields[field]!.type), one]),
        ),
      );
    };

    it('answer without errors, in one statement per link, with the values a read of the same rows at the root gives', async () => {
      const seen = new Map<string, Map<number, any>>();
      let rows = 0;
      for (const { list, first, links } of documents) {
        const query = `{ ${list}(first: ${first}) { nodes { id ${links.map(reach).join(' ')} } } }`;
        const { body, statements } = await env.gql(query);
        expect(body.errors, `${query}: ${JSON.stringify(body.errors)}`).toBeUndefined();
        // The list, then a statement per link, whatever the rows (a bill of material: one per
        // level it walks). Over that, sent again and the fewer counted: the token's check, once
        // its few seconds of trust are over, counts too.
        if (links[0]?.kind !== 'lines' && statements > 1 + links.length)
          expect((await env.gql(query)).statements, query).toBeLessThanOrEqual(1 + links.length);
        for (const parent of body.data![list].nodes)
          for (const link of links)
            for (const [name, node] of reached(link, parent[link.field.name])) {
              if (!seen.has(name)) seen.set(name, new Map());
              seen.get(name)!.set(node.id, node);
              rows += 1;
            }
      }
      expect(rows).toBeGreaterThan(100);
      // The same rows read by id at the root: the same values, whichever way they were reached.
      for (const [name, nodes] of seen) {
        const { list } = rootFieldsOf(schema, schema.getType(name) as GraphQLObjectType);
        const ids = [...nodes.keys()].slice(0, 100);
        const { body } = await env.gql(
          `{ ${list!.name}(first: 100, filter: { idIn: [${ids}] }) { nodes ${everyValue(schema.getType(name) as GraphQLObjectType)} } }`,
        );
        expect(body.errors, name).toBeUndefined();
        const byId = new Map(body.data![list!.name].nodes.map((n: any) => [n.id, n]));
        for (const id of ids) expect(nodes.get(id), `${name} ${id}`).toEqual(byId.get(id));
      }
    });

    it('a reverse link beside the same type reached another way: one plan of columns serves both', async () => {
      const item = await prisma().productStructureItem.findFirstOrThrow({
        where: { product: { product_structure: { isNot: null } } },
      });
      const { body, statements } = await env.gql(`{ product(id: ${item.product_id}) {
        usedIn { nodes { id netQuantity grossQuantity lossPercentage isPhantom } }
        productStructure { items { id netQuantity skipGrainComponentCalculation } }
      } }`);
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const used = await prisma().productStructureItem.findMany({
        where: { product_id: item.product_id },
        orderBy: { id: 'asc' },
        take: 20,
      });
      expect(body.data!.product.usedIn.nodes).toEqual(
        used.map((u) => ({
          id: u.id,
          netQuantity: u.net_quantity === null ? null : Number(u.net_quantity),
          grossQuantity: u.gross_quantity === null ? null : Number(u.gross_quantity),
          lossPercentage: u.loss_percentage === null ? null : Number(u.loss_percentage),
          isPhantom: u.is_phantom,
        })),
      );
      // the product, its items where used, its structure, the structure's items
      expect(statements).toBe(4);
    });
  });

  describe('connections', () => {
    it('totalCount costs one statement, and only when selected', async () => {
      const without = await env.gql('{ products(first: 3) { nodes { id } } }');
      const withTotal = await env.gql('{ products(first: 3) { totalCount nodes { id } } }');
      expect(withTotal.statements - without.statements).toBe(1);
      expect(withTotal.body.data!.products.totalCount).toBe(await prisma().product.count());
    });

    it('pages forward with first/after and back with last/before, over the same order', async () => {
      const page = async (args: string) =>
        (
          await env.gql(
            `{ products(${args}) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
          )
        ).body.data!.products;
      const first = await page('first: 20');
      expect(first.edges.map((e: { node: { id: number } }) => e.node.id)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
      const second = await page(`first: 20, after: "${first.pageInfo.endCursor}"`);
      expect(second.edges[0].node.id).toBe(21);
      expect(second.pageInfo.hasPreviousPage).toBe(true);
      const back = await page(`last: 5, before: "${second.pageInfo.startCursor}"`);
      expect(back.edges.map((e: { node: { id: number } }) => e.node.id)).toEqual([16, 17, 18, 19, 20]);
      const total = await prisma().product.count();
      const tail = await page('last: 3');
      expect(tail.edges.map((e: { node: { id: number } }) => e.node.id)).toEqual([total - 2, total - 1, total]);
      expect(tail.pageInfo.hasNextPage).toBe(false);
    });

    it("in id order, `after` reads on from the cursor's row: rows removed before it skip nothing (keyset); with orderBy, positions", async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await prisma().brand.create({ data: { reference: `KEYSET-${provider}-${i}` } })).id);
      const page = async (args: string) =>
        (await env.gql(`{ brands(filter: { idIn: [${ids}] }, ${args}) { nodes { id } pageInfo { endCursor } } }`)).body
          .data!.brands;
      const first = await page('first: 2');
      expect(first.nodes.map((n: { id: number }) => n.id)).toEqual(ids.slice(0, 2));
      const byPosition = await page('first: 2, orderBy: [REFERENCE_ASC]');
      await prisma().brand.delete({ where: { id: ids[0] } });
      // An offset would now start one row later and skip ids[2].
      expect(
        (await page(`first: 2, after: "${first.pageInfo.endCursor}"`)).nodes.map((n: { id: number }) => n.id),
      ).toEqual(ids.slice(2, 4));
      // Ordered by something else, a cursor is a position: the list moved up by one under it.
      expect(
        (await page(`first: 2, after: "${byPosition.pageInfo.endCursor}", orderBy: [REFERENCE_ASC]`)).nodes.map(
          (n: { id: number }) => n.id,
        ),
      ).toEqual(ids.slice(3, 5));
      // A cursor from before keyset paging (a position alone) still works, as an offset.
      const oldCursor = Buffer.from('offset:1').toString('base64url');
      expect((await page(`first: 2, after: "${oldCursor}"`)).nodes.map((n: { id: number }) => n.id)).toEqual(
        ids.slice(3, 5),
      );
    });

    it('pages past the first (cut by ids, then their rows read) hold what one read holds: DESC across NULLs, filters, relationships', async () => {
      const supplier = (
        await prisma().product.groupBy({
          by: ['preferred_supplier_id'],
          where: { preferred_supplier_id: { not: null } },
          _count: true,
          orderBy: { _count: { preferred_supplier_id: 'desc' } },
          take: 1,
        })
      )[0]!;
      const reference = (await prisma().supplier.findUniqueOrThrow({ where: { id: supplier.preferred_supplier_id! } }))
        .reference;
      // A group of products with GTINs, a few of them cleared, so that GTIN_DESC pages cross from
      // values to NULLs (NULLS LAST).
      const group = (
        await prisma().product.groupBy({
          by: ['product_group_id'],
          where: { gtin: { not: null } },
          _count: true,
          orderBy: { _count: { product_group_id: 'asc' } },
          take: 1,
        })
      )[0]!.product_group_id!;
      const cleared = await prisma().product.findMany({
        where: { product_group_id: group },
        orderBy: { id: 'asc' },
        take: 5,
        select: { id: true, gtin: true },
      });
      await prisma().product.updateMany({ where: { id: { in: cleared.map((p) => p.id) } }, data: { gtin: null } });
      try {
        const cases = [
          { args: `filter: { productGroupId: ${group} }, orderBy: [GTIN_DESC]`, size: 4 },
          { args: `filter: { preferredSupplierReference: "${reference}" }, orderBy: [REFERENCE_DESC]`, size: 2 },
        ];
        for (const { args, size } of cases) {
          const read = async (paging: string) =>
            (
              await env.gql(
                `{ products(${args}, ${paging}) { nodes { id gtin reference productGroup { id } productStructure { id } } pageInfo { endCursor } } }`,
              )
            ).body.data!.products;
          const whole = (await read('first: 100')).nodes;
          expect(whole.length, args).toBeGreaterThan(2 * size);
          const paged: unknown[] = [];
          for (let cursor: string | null = null; paged.length < whole.length; ) {
            const page: { nodes: unknown[]; pageInfo: { endCursor: string } } = await read(
              `first: ${size}${cursor ? `, after: "${cursor}"` : ''}`,
            );
            expect(page.nodes.length, args).toBeGreaterThan(0);
            paged.push(...page.nodes);
            cursor = page.pageInfo.endCursor;
          }
          expect(paged, args).toEqual(whole);
          if (args.includes('GTIN_DESC'))
            expect(whole.slice(-cleared.length).map((n: { gtin: string | null }) => n.gtin)).toEqual(
              cleared.map(() => null),
            );
        }
      } finally {
        for (const { id, gtin } of cleared) await prisma().product.update({ where: { id }, data: { gtin } });
      }
    });

    it('20 by default, at most 100; a bad cursor or size is BAD_USER_INPUT naming the argument', async () => {
      expect((await env.gql('{ products { nodes { id } } }')).body.data!.products.nodes).toHaveLength(20);
      for (const [args, field] of [
        ['first: 101', 'first'],
        ['last: -1', 'last'],
        ['after: "bm9wZQ"', 'after'],
      ] as const) {
        const { body } = await env.gql(`{ products(${args}) { nodes { id } } }`);
        expect(body.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field } });
      }
    });
  });

  describe('filters cover the REST filters, and orderBy', () => {
    const count = async (filter: string, type = 'products') =>
      (await env.gql(`{ ${type}(filter: ${filter}) { totalCount } }`)).body.data![type].totalCount;

    it('isActive, isSales, productGroupId, modifiedAfter, productGroupTypeId, reference', async () => {
      expect(await count('{ isActive: true }')).toBe(await prisma().product.count({ where: { is_active: true } }));
      expect(await count('{ isSales: true, isActive: false }')).toBe(
        await prisma().product.count({ where: { is_sales: true, is_active: false } }),
      );
      expect(await count('{ productGroupId: 3 }')).toBe(
        await prisma().product.count({ where: { product_group_id: 3 } }),
      );
      const after = new Date('2025-10-01T00:00:00Z');
      const modified = await prisma().product.count({ where: { modified_date: { gt: after } } });
      expect(modified).toBeGreaterThan(0);
      expect(await count('{ modifiedAfter: "2025-10-01T00:00:00Z" }')).toBe(modified);
      expect(await count('{ productGroupTypeId: 1 }', 'productGroups')).toBe(
        await prisma().productGroup.count({ where: { type_id: 1 } }),
      );
      const customer = await prisma().customer.findFirstOrThrow({ where: { id: 7 } });
      const found = (await env.gql(`{ customers(filter: { reference: "${customer.reference}" }) { nodes { id } } }`))
        .body.data!.customers.nodes;
      expect(found).toEqual([{ id: 7 }]);
    });

    it('gtin matches with or without leading zeros (the spec types it as a number)', async () => {
      const product = await prisma().product.update({ where: { id: 42 }, data: { gtin: '0054000001234' } });
      for (const gtin of ['0054000001234', '54000001234']) {
        expect(
          (await env.gql(`{ products(filter: { gtin: "${gtin}" }) { nodes { id } } }`)).body.data!.products.nodes,
        ).toEqual([{ id: product.id }]);
      }
    });

    it('preferredSupplierReference: products whose preferred supplier has that reference', async () => {
      const supplier = await prisma().supplier.findFirstOrThrow({ where: { preferred_for: { some: {} } } });
      const expected = await prisma().product.count({ where: { preferred_supplier_id: supplier.id } });
      expect(await count(`{ preferredSupplierReference: "${supplier.reference}" }`)).toBe(expected);
    });

    it('orders by any plain attribute, then id; missing values last on both providers', async () => {
      const { body } = await env.gql('{ products(first: 100, orderBy: [GTIN_DESC]) { nodes { id gtin } } }');
      const gtins = body.data!.products.nodes.map((p: { gtin: string | null }) => p.gtin);
      const present = gtins.filter((g: string | null) => g !== null);
      expect(present).toEqual([...present].sort().reverse());
      expect(
        gtins.indexOf(null) === -1 || gtins.slice(gtins.indexOf(null)).every((g: string | null) => g === null),
      ).toBe(true);
    });
  });

  describe('values', () => {
    it('localized text: the four languages, and `text` in the asked locale with the fallback chain', async () => {
      await prisma().unit.update({
        where: { id: 2 },
        data: { description_en: null, description_fr: null, description_nl: 'stuk', description_de: 'Stück' },
      });
      const { body } = await env.gql(
        '{ unit(id: 2) { en: description { nl fr en de text } fr: description(locale: FR) { text } de: description(locale: DE) { text } } }',
      );
      expect(body.data!.unit).toEqual({
        en: { nl: 'stuk', fr: null, en: null, de: 'Stück', text: 'stuk' },
        fr: { text: 'stuk' },
        de: { text: 'Stück' },
      });
    });

    it('decimals read back exactly as stored', async () => {
      await prisma().product.update({
        where: { id: 10 },
        data: { consumer_price: '0.1', nlc: '12345678.9012345', gross_weight_in_kilogram: '1e-9' },
      });
      const { body } = await env.gql('{ product(id: 10) { consumerPrice nlc grossWeightInKilogram } }');
      expect(body.data!.product).toEqual({ consumerPrice: 0.1, nlc: 12345678.9012345, grossWeightInKilogram: 1e-9 });
    });

    it('an unknown id is null, not an error', async () => {
      const { body } = await env.gql('{ product(id: 999999) { id } }');
      expect(body).toEqual({ data: { product: null } });
    });

    it('the deprecated buyer and keyUser still answer', async () => {
      const { body } = await env.gql('{ supplier(id: 1) { buyer { id } keyUser { id } } }');
      expect(body.errors).toBeUndefined();
      expect(Object.keys(body.data!.supplier)).toEqual(['buyer', 'keyUser']);
    });

    it('reverse links agree with the data: customer products, products of a group and of a supplier', async () => {
      const { body } = await env.gql(`{
        customer(id: 3) { customerProducts { totalCount nodes { customer { id } } } }
        productGroup(id: 3) { products(first: 100) { totalCount nodes { productGroup { id } } } }
        supplier(id: 2) { products { totalCount } }
        product(id: 5) { customerProducts { totalCount } }
      }`);
      expect(body.data!.customer.customerProducts.totalCount).toBe(
        await prisma().customerProduct.count({ where: { customer_id: 3 } }),
      );
      expect(
        body.data!.customer.customerProducts.nodes.every((n: { customer: { id: number } }) => n.customer.id === 3),
      ).toBe(true);
      expect(body.data!.productGroup.products.totalCount).toBe(
        await prisma().product.count({ where: { product_group_id: 3 } }),
      );
      expect(body.data!.supplier.products.totalCount).toBe(
        await prisma().product.count({ where: { preferred_supplier_id: 2 } }),
      );
      expect(body.data!.product.customerProducts.totalCount).toBe(
        await prisma().customerProduct.count({ where: { product_id: 5 } }),
      );
    });
  });

  describe('over HTTP', () => {
    it('needs a token (401 with the Bearer challenge), like REST', async () => {
      const res = await env.t.request('/graphql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="master-data"');
    });

    it('a mutation with a read-only token: 403 insufficient_scope at the HTTP level, nothing written', async () => {
      const { status, body } = await env.gql(
        'mutation { createBrand(input: { reference: "NOPE" }) { id } }',
        undefined,
        { token: env.readToken },
      );
      expect(status).toBe(403);
      expect(body).toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN' } }] });
      expect(await prisma().brand.count({ where: { reference: 'NOPE' } })).toBe(0);
    });

    it('a NUL character in a variable is BAD_USER_INPUT before any statement', async () => {
      const { status, body, statements } = await env.gql(
        'query($r: String) { customers(filter: { reference: $r }) { nodes { id } } }',
        { r: 'a\u0000b' },
      );
      expect(status).toBe(400);
      expect(body.errors![0]).toMatchObject({
        message: 'variable $r contains a NUL character',
        extensions: { code: 'BAD_USER_INPUT' },
      });
      expect(statements).toBe(0);
    });

    it('a NUL character in a string literal of the query is BAD_USER_INPUT too, every time it is sent', async () => {
      for (let i = 0; i < 2; i++) {
        const { status, body, statements } = await env.gql(
          '{ customers(filter: { reference: "a\\u0000b" }) { nodes { id } } }',
        );
        expect(status).toBe(400);
        expect(body.errors![0]).toMatchObject({
          message: 'a string in the query contains a NUL character',
          extensions: { code: 'BAD_USER_INPUT' },
        });
        expect(statements).toBe(0);
      }
    });

    it('counts operations by name in the metrics', async () => {
      await env.gql('query MetricsProbe { __typename }');
      const metrics = await (await env.t.request('/metrics')).text();
      expect(metrics).toMatch(/^graphql_operations_total\{operation="MetricsProbe",type="query",outcome="ok"\} 1$/m);
      expect(metrics).toMatch(/^graphql_operation_duration_seconds_count\{operation="MetricsProbe",type="query"\} 1$/m);
      // Refused before running (here by validation): counted too, as rejected.
      const refused = await env.gql('query RefusedProbe { noSuchField }', undefined);
      expect(refused.status).toBe(400);
      expect(await (await env.t.request('/metrics')).text()).toMatch(
        /^graphql_operations_total\{operation="RefusedProbe",type="unknown",outcome="rejected"\} 1$/m,
      );
    });
  });
});
