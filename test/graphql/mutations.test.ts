/**
 * GraphQL mutations and the write rules on both providers (graphql.md "Writing"; rest.md
 * "Writing" and "Operations that are always refused", the same rules with GraphQL error codes).
 * Written from the contract: what a client sends and what it then reads back; the database is
 * looked at directly only to prove that a refused write left nothing behind.
 *
 * Product structures, their items and bill-of-material cycles: mutations-structures.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlEnv, operationExpectations, type GraphQLTestEnv } from '../support/graphql.ts';
import { providers } from '../support/databases.ts';
import { unusedCode } from '../rest/support.ts';
import { withCheckDigit } from '../../src/data/formats.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sorted = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);

const CUSTOMER_FIELDS = `id reference name altName email phone isProspect isActive creditLimitUsed expiredInvoicesTotal modifiedDate
  customerType { id } language { id } currency { id } accountManager { id } customerServiceManager { id } address { id }
  commercialResolveResponsibleUsers { id } informOnComplaintUsers { id } informOnComplaintFunctions { id }`;
const PRODUCT_FIELDS = `id reference isActive isSales gtin intrastatCode grossWeightInKilogram netWeightInKilogram drainedWeightInKilogram
  productionEfficiencyPerHour productionReportTypeComponent productionReportTypeByprod productStructureQuantity isLotcontrolled nlc
  priceBasicUnitExVat consumerPrice depositPrice modifiedDate
  name { nl fr en de } legalName { nl fr en de } shelfLife { value interval }
  unit { id } productGroup { id } brand { id } productionLine { id } preferredSupplier { id } productStructure { id }`;
const SUPPLIER_FIELDS = `id reference name isActive currencyText email modifiedDate currency { id } address { id }
  types { id } commercialResolveResponsibleUsers { id } informOnComplaintUsers { id } evaluationRoleUsers { id }`;

describe.each(providers)('GraphQL mutations on %s', (provider) => {
  let env: GraphQLTestEnv;
  const prisma = () => env.database.db.prisma;
  let counter = 0;
  /** A value no other row holds. */
  const unique = (prefix: string) => `${prefix}-${provider}-${++counter}`;
  /** A GTIN-13 no other row holds, with a valid check digit. */
  const gtinOf = (prefix: number) => withCheckDigit(`${prefix}${String(++counter).padStart(10, '0')}`);
  /** A language code the seed does not store, for the Language case. */
  const language = unusedCode('language', provider);

  const { ok, refused, notFound } = operationExpectations(() => env);

  // Rows of our own to link to, so that sets of links are known exactly.
  let users: number[];
  let supplierTypes: number[];
  let functionGroups: number[];

  async function createProduct(extra = ''): Promise<number> {
    return (await ok(`mutation { createProduct(input: { reference: "${unique('P')}", unitId: 1 ${extra} }) { id } }`))
      .createProduct.id;
  }
  async function createCustomer(extra = ''): Promise<number> {
    const name = /\bname:/.test(extra) ? '' : ', name: "Customer"';
    return (await ok(`mutation { createCustomer(input: { reference: "${unique('C')}" ${name} ${extra} }) { id } }`))
      .createCustomer.id;
  }
  async function createSupplier(extra = ''): Promise<number> {
    const name = /\bname:/.test(extra) ? '' : ', name: "Supplier"';
    return (await ok(`mutation { createSupplier(input: { reference: "${unique('S')}" ${name} ${extra} }) { id } }`))
      .createSupplier.id;
  }

  beforeAll(async () => {
    env = await graphqlEnv(provider);
    users = [];
    for (let i = 0; i < 4; i++)
      users.push((await ok(`mutation { createUser(input: { username: "${unique('user')}" }) { id } }`)).createUser.id);
    supplierTypes = [];
    for (let i = 0; i < 4; i++)
      supplierTypes.push(
        (await ok(`mutation { createSupplierType(input: { description: { en: "type ${i}" } }) { id } }`))
          .createSupplierType.id,
      );
    functionGroups = [];
    for (let i = 0; i < 2; i++)
      functionGroups.push(
        (await ok(`mutation { createFunctionCorporateGroup(input: { reference: "${unique('FCG')}" }) { id } }`))
          .createFunctionCorporateGroup.id,
      );
  });
  afterAll(async () => env?.database.cleanup());

  describe('the write scope', () => {
    it('a read-only token gets 403 insufficient_scope with the Bearer challenge, and nothing is written', async () => {
      const reference = unique('U');
      const res = await env.t.request('/graphql', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${env.readToken}`,
          'Content-Type': 'application/json',
          Accept: 'application/graphql-response+json',
        },
        body: JSON.stringify({ query: `mutation { createUnit(input: { reference: "${reference}" }) { id } }` }),
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      expect(await res.json()).toEqual({
        errors: [{ message: expect.any(String), extensions: { code: 'FORBIDDEN' } }],
      });
      expect(await prisma().unit.count({ where: { reference } })).toBe(0);
    });

    it('a read-only token still reads; in a document with both, the chosen operation decides', async () => {
      const reference = unique('U');
      const document = `query Read { unit(id: 1) { id } } mutation Write { createUnit(input: { reference: "${reference}" }) { id } }`;
      const noName = await env.gql(document, undefined, { token: env.readToken });
      expect(noName.status).toBe(400); // two operations and no operationName: the operation cannot be determined
      const res = await env.t.request('/graphql', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${env.readToken}`,
          'Content-Type': 'application/json',
          Accept: 'application/graphql-response+json',
        },
        body: JSON.stringify({ query: document, operationName: 'Read' }),
      });
      expect(res.status).toBe(200);
      expect((await res.json()).data).toEqual({ unit: { id: 1 } });
      const write = await env.t.request('/graphql', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${env.readToken}`,
          'Content-Type': 'application/json',
          Accept: 'application/graphql-response+json',
        },
        body: JSON.stringify({ query: document, operationName: 'Write' }),
      });
      expect(write.status).toBe(403);
      expect(write.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      expect(await prisma().unit.count({ where: { reference } })).toBe(0);
    });

    it('mutations are never run over GET, even with the write scope', async () => {
      const reference = unique('U');
      const query = encodeURIComponent(`mutation { createUnit(input: { reference: "${reference}" }) { id } }`);
      const res = await env.t.request(`/graphql?query=${query}`, {
        headers: { Authorization: `Bearer ${env.token}`, Accept: 'application/graphql-response+json' },
      });
      expect(res.status).toBe(405);
      expect(await prisma().unit.count({ where: { reference } })).toBe(0);
    });
  });

  describe('create and partial update', () => {
    it('units: created with localized text, read back, re-read by query; an update moves modifiedDate and keeps the rest', async () => {
      const reference = unique('U');
      const created = (
        await ok(
          `mutation { createUnit(input: { reference: "${reference}", description: { nl: "doos", en: "box" } }) { id reference modifiedDate description { nl fr en de } } }`,
        )
      ).createUnit;
      expect(created).toMatchObject({ reference, description: { nl: 'doos', fr: null, en: 'box', de: null } });
      expect(Date.parse(created.modifiedDate)).not.toBeNaN();
      const read = (await ok(`{ unit(id: ${created.id}) { id reference modifiedDate description { nl fr en de } } }`))
        .unit;
      expect(read).toEqual(created);

      await sleep(20);
      const renamed = unique('U');
      const updated = (
        await ok(
          `mutation { updateUnit(id: ${created.id}, input: { reference: "${renamed}" }) { id reference modifiedDate description { nl fr en de } } }`,
        )
      ).updateUnit;
      expect(updated).toMatchObject({ id: created.id, reference: renamed, description: created.description });
      expect(Date.parse(updated.modifiedDate)).toBeGreaterThan(Date.parse(created.modifiedDate));
      expect(
        (await ok(`{ unit(id: ${created.id}) { id reference modifiedDate description { nl fr en de } } }`)).unit,
      ).toEqual(updated);
    });

    it('an update that changes nothing keeps version and modifiedDate; one that changes something moves both', async () => {
      const reference = unique('U');
      const id = (await ok(`mutation { createUnit(input: { reference: "${reference}" }) { id } }`)).createUnit.id;
      const before = (await ok(`{ unit(id: ${id}) { version modifiedDate } }`)).unit;
      expect(before.version).toBe(1);
      await sleep(20);
      expect((await ok(`mutation { updateUnit(id: ${id}, input: {}) { version modifiedDate } }`)).updateUnit).toEqual(
        before,
      );
      expect(
        (await ok(`mutation { updateUnit(id: ${id}, input: { reference: "${reference}" }) { version modifiedDate } }`))
          .updateUnit,
      ).toEqual(before);
      const after = (
        await ok(`mutation { updateUnit(id: ${id}, input: { description: { en: "Crate" } }) { version modifiedDate } }`)
      ).updateUnit;
      expect(after.version).toBe(2);
      expect(Date.parse(after.modifiedDate)).toBeGreaterThan(Date.parse(before.modifiedDate));
    });

    it('customers: attributes, every to-one and every to-many relationship, read back and re-read', async () => {
      const reference = unique('C');
      const [u1, u2, u3] = users as [number, number, number];
      const input = {
        reference,
        name: 'Bakkerij Test',
        altName: 'BT',
        email: 'info@example.test',
        isProspect: true,
        creditLimitUsed: 2500.75,
        expiredInvoicesTotal: '0.1',
        customerTypeId: 1,
        languageId: 2,
        currencyId: 1,
        accountManagerId: u1,
        customerServiceManagerId: u2,
        addressId: 1,
        commercialResolveResponsibleUsers: { set: [u1, u2] },
        informOnComplaintUsers: { add: [u3] },
        informOnComplaintFunctions: { set: functionGroups },
      };
      const created = (
        await ok(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { ${CUSTOMER_FIELDS} } }`, {
          input,
        })
      ).createCustomer;
      expect(created).toMatchObject({
        reference,
        name: 'Bakkerij Test',
        altName: 'BT',
        email: 'info@example.test',
        phone: null,
        isProspect: true,
        creditLimitUsed: 2500.75,
        expiredInvoicesTotal: 0.1,
        customerType: { id: 1 },
        language: { id: 2 },
        currency: { id: 1 },
        accountManager: { id: u1 },
        customerServiceManager: { id: u2 },
        address: { id: 1 },
      });
      expect(sorted(created.commercialResolveResponsibleUsers)).toEqual([u1, u2]);
      expect(sorted(created.informOnComplaintUsers)).toEqual([u3]);
      expect(sorted(created.informOnComplaintFunctions)).toEqual([...functionGroups].sort((a, b) => a - b));

      const read = (await ok(`{ customer(id: ${created.id}) { ${CUSTOMER_FIELDS} } }`)).customer;
      expect({
        ...read,
        commercialResolveResponsibleUsers: sorted(read.commercialResolveResponsibleUsers),
        informOnComplaintFunctions: sorted(read.informOnComplaintFunctions),
      }).toEqual({
        ...created,
        commercialResolveResponsibleUsers: sorted(created.commercialResolveResponsibleUsers),
        informOnComplaintFunctions: sorted(created.informOnComplaintFunctions),
      });
    });

    it('customers: a partial update changes only what it gives; links and other attributes stay', async () => {
      const [u1, u2] = users as [number, number];
      const id = await createCustomer(
        `, email: "old@example.test", phone: "123", customerTypeId: 1, accountManagerId: ${u1}, commercialResolveResponsibleUsers: { set: [${u1}, ${u2}] }`,
      );
      const before = (await ok(`{ customer(id: ${id}) { ${CUSTOMER_FIELDS} } }`)).customer;
      await sleep(20);
      const after = (
        await ok(
          `mutation { updateCustomer(id: ${id}, input: { email: "new@example.test", customerTypeId: 2 }) { ${CUSTOMER_FIELDS} } }`,
        )
      ).updateCustomer;
      expect(after).toEqual({
        ...before,
        email: 'new@example.test',
        customerType: { id: 2 },
        modifiedDate: after.modifiedDate,
        commercialResolveResponsibleUsers: expect.anything(),
      });
      expect(sorted(after.commercialResolveResponsibleUsers)).toEqual([u1, u2]);
      expect(Date.parse(after.modifiedDate)).toBeGreaterThan(Date.parse(before.modifiedDate));
    });

    it('suppliers: types and other to-many links, currency, and the currency text attribute', async () => {
      const [t1, t2] = supplierTypes as [number, number];
      const [u1] = users as [number];
      const erUser = (await ok('mutation { createSupplierEvaluationRoleUser { id createdDate modifiedDate } }'))
        .createSupplierEvaluationRoleUser;
      expect(Date.parse(erUser.createdDate)).not.toBeNaN();
      const reference = unique('S');
      const created = (
        await ok(`mutation { createSupplier(input: {
        reference: "${reference}", name: "Molens", currencyText: "EUR", email: "m@example.test", currencyId: 2, addressId: 1,
        types: { set: [${t1}, ${t2}] }, informOnComplaintUsers: { set: [${u1}] }, evaluationRoleUsers: { add: [${erUser.id}] }
      }) { ${SUPPLIER_FIELDS} } }`)
      ).createSupplier;
      expect(created).toMatchObject({
        reference,
        name: 'Molens',
        currencyText: 'EUR',
        email: 'm@example.test',
        currency: { id: 2 },
        address: { id: 1 },
      });
      expect(sorted(created.types)).toEqual([t1, t2]);
      expect(sorted(created.informOnComplaintUsers)).toEqual([u1]);
      expect(sorted(created.evaluationRoleUsers)).toEqual([erUser.id]);
      expect(created.commercialResolveResponsibleUsers).toEqual([]);

      await sleep(20);
      const updated = (
        await ok(
          `mutation { updateSupplier(id: ${created.id}, input: { name: "Molens NV", types: { remove: [${t1}] } }) { ${SUPPLIER_FIELDS} } }`,
        )
      ).updateSupplier;
      expect(updated).toMatchObject({
        name: 'Molens NV',
        currencyText: 'EUR',
        email: 'm@example.test',
        currency: { id: 2 },
      });
      expect(sorted(updated.types)).toEqual([t2]);
      expect(sorted(updated.informOnComplaintUsers)).toEqual([u1]);
      expect(Date.parse(updated.modifiedDate)).toBeGreaterThan(Date.parse(created.modifiedDate));
      const read = (await ok(`{ supplier(id: ${created.id}) { ${SUPPLIER_FIELDS} } }`)).supplier;
      expect({ ...read, types: sorted(read.types) }).toEqual({ ...updated, types: sorted(updated.types) });
    });

    it('products: decimals, localized text, shelfLife and to-one links, read back exactly and re-read', async () => {
      const reference = unique('P');
      const gtin = withCheckDigit(`54${String(Date.now() % 1e9).padStart(9, '0')}${counter % 10}`);
      const input = {
        reference,
        unitId: 2,
        isSales: true,
        isLotcontrolled: true,
        name: { nl: 'Brood', fr: 'Pain', en: 'Bread', de: 'Brot' },
        legalName: { en: 'White bread' },
        gtin,
        intrastatCode: '19059080',
        grossWeightInKilogram: 0.85,
        netWeightInKilogram: '0.8',
        drainedWeightInKilogram: 0.1,
        productionEfficiencyPerHour: 1200,
        productionReportTypeComponent: 'None',
        productionReportTypeByprod: 'None',
        productStructureQuantity: 2.5,
        nlc: 12345.6789,
        priceBasicUnitExVat: '3.14157',
        consumerPrice: 0.3,
        depositPrice: 0,
        shelfLife: { value: 21, interval: 'Days' },
        productGroupId: 1,
        brandId: 1,
        productionLineId: 1,
        preferredSupplierId: 1,
      };
      const created = (
        await ok(`mutation($input: CreateProductInput!) { createProduct(input: $input) { ${PRODUCT_FIELDS} } }`, {
          input,
        })
      ).createProduct;
      expect(created).toMatchObject({
        reference,
        isSales: true,
        isLotcontrolled: true,
        gtin,
        intrastatCode: '19059080',
        grossWeightInKilogram: 0.85,
        netWeightInKilogram: 0.8,
        drainedWeightInKilogram: 0.1,
        productionEfficiencyPerHour: 1200,
        productionReportTypeComponent: 'None',
        productionReportTypeByprod: 'None',
        productStructureQuantity: 2.5,
        nlc: 12345.6789,
        priceBasicUnitExVat: 3.14157,
        consumerPrice: 0.3,
        depositPrice: 0,
        name: { nl: 'Brood', fr: 'Pain', en: 'Bread', de: 'Brot' },
        legalName: { nl: null, fr: null, en: 'White bread', de: null },
        shelfLife: { value: 21, interval: 'Days' },
        unit: { id: 2 },
        productGroup: { id: 1 },
        brand: { id: 1 },
        productionLine: { id: 1 },
        preferredSupplier: { id: 1 },
        productStructure: null,
      });
      expect((await ok(`{ product(id: ${created.id}) { ${PRODUCT_FIELDS} } }`)).product).toEqual(created);

      await sleep(20);
      const updated = (
        await ok(
          `mutation { updateProduct(id: ${created.id}, input: { consumerPrice: 0.35, isSales: false, unitId: 3, shelfLife: { value: 30, interval: "Days" } }) { ${PRODUCT_FIELDS} } }`,
        )
      ).updateProduct;
      expect(updated).toEqual({
        ...created,
        consumerPrice: 0.35,
        isSales: false,
        unit: { id: 3 },
        shelfLife: { value: 30, interval: 'Days' },
        modifiedDate: updated.modifiedDate,
      });
      expect(Date.parse(updated.modifiedDate)).toBeGreaterThan(Date.parse(created.modifiedDate));
      expect((await ok(`{ product(id: ${created.id}) { ${PRODUCT_FIELDS} } }`)).product).toEqual(updated);
    });

    it('customer products: created for a customer and a product; external fields updated', async () => {
      const customerId = await createCustomer();
      const productId = await createProduct();
      const created = (
        await ok(`mutation { createCustomerProduct(input: { customerId: ${customerId}, productId: ${productId}, externalReference: "EXT-1", externalProductName: "Their bread" }) {
        id externalReference externalProductName customer { id } product { id } } }`)
      ).createCustomerProduct;
      expect(created).toMatchObject({
        externalReference: 'EXT-1',
        externalProductName: 'Their bread',
        customer: { id: customerId },
        product: { id: productId },
      });
      const updated = (
        await ok(
          `mutation { updateCustomerProduct(id: ${created.id}, input: { externalReference: "EXT-2" }) { id externalReference externalProductName customer { id } product { id } } }`,
        )
      ).updateCustomerProduct;
      expect(updated).toEqual({ ...created, externalReference: 'EXT-2' });
      expect(
        (
          await ok(
            `{ customerProduct(id: ${created.id}) { id externalReference externalProductName customer { id } product { id } } }`,
          )
        ).customerProduct,
      ).toEqual(updated);
      const links = (await ok(`{ customer(id: ${customerId}) { customerProducts { nodes { id } } } }`)).customer
        .customerProducts.nodes;
      expect(links).toEqual([{ id: created.id }]);
    });

    it('product groups: the small transport packaging object and the type link', async () => {
      const created = (
        await ok(`mutation { createProductGroup(input: { description: { en: "Breads" }, informDaysBbd: 3, typeId: 1,
        transportPackagingSettings: { removeStockWhenPicked: true, rounding: "up" } }) {
        id informDaysBbd type { id } description { en nl } transportPackagingSettings { removeStockWhenPicked rounding } } }`)
      ).createProductGroup;
      expect(created).toMatchObject({
        informDaysBbd: 3,
        type: { id: 1 },
        description: { en: 'Breads', nl: null },
        transportPackagingSettings: { removeStockWhenPicked: true, rounding: 'up' },
      });
      const updated = (
        await ok(`mutation { updateProductGroup(id: ${created.id}, input: { informDaysBbd: 5, typeId: 2 }) {
        id informDaysBbd type { id } description { en nl } transportPackagingSettings { removeStockWhenPicked rounding } } }`)
      ).updateProductGroup;
      expect(updated).toEqual({ ...created, informDaysBbd: 5, type: { id: 2 } });
    });

    it.each([
      [
        'Address',
        '{ line1: "Kerkstraat 1", city: "Gent", countryCode: "BE" }',
        '{ city: "Brugge" }',
        'line1 city countryCode',
        { line1: 'Kerkstraat 1', city: 'Brugge', countryCode: 'BE' },
      ],
      [
        'Brand',
        '{ reference: "BRAND-REF" }',
        '{ reference: "BRAND-REF-2" }',
        'reference',
        { reference: 'BRAND-REF-2' },
      ],
      [
        'ProductionLine',
        '{ reference: "LINE-REF", barcode: "123", name: { en: "Oven" } }',
        '{ isActive: false, name: { nl: "Oven" } }',
        'reference barcode isActive name { nl en }',
        { reference: 'LINE-REF', barcode: '123', isActive: false, name: { nl: 'Oven', en: 'Oven' } },
      ],
      [
        'ProductGroupType',
        '{ description: { en: "Bakery" } }',
        '{ description: { fr: "Boulangerie" } }',
        'description { en fr }',
        { description: { en: 'Bakery', fr: 'Boulangerie' } },
      ],
      [
        'ProductStructureItemType',
        '{ description: { en: "Component" } }',
        '{ description: { de: "Komponente" } }',
        'description { en de }',
        { description: { en: 'Component', de: 'Komponente' } },
      ],
      [
        'ProductStructureItemCalculationMethod',
        '{ description: { en: "Per batch" } }',
        '{ description: { en: "Per unit" } }',
        'description { en }',
        { description: { en: 'Per unit' } },
      ],
      [
        'CustomerType',
        '{ reference: 777001, name: { en: "Retail" } }',
        '{ importReference: "IMP" }',
        'reference importReference name { en }',
        { reference: 777001, importReference: 'IMP', name: { en: 'Retail' } },
      ],
      [
        'FunctionCorporateGroup',
        '{ reference: "FCG-REF", name: "Quality" }',
        '{ name: "Quality assurance" }',
        'reference name',
        { reference: 'FCG-REF', name: 'Quality assurance' },
      ],
      [
        'Language',
        `{ alpha2Code: "${language}", description: "Test" }`,
        '{ description: "Test language" }',
        'alpha2Code description',
        { alpha2Code: language, description: 'Test language' },
      ],
      [
        'SupplierType',
        '{ description: { en: "Flour" }, requestCertificates: true }',
        '{ isEmergencyNumberRequired: true }',
        'requestCertificates isEmergencyNumberRequired description { en }',
        { requestCertificates: true, isEmergencyNumberRequired: true, description: { en: 'Flour' } },
      ],
    ])(
      'lookup type %s: created and partially updated (integrators create what they link to)',
      async (type, create, update, fields, expected) => {
        const id = (await ok(`mutation { create${type}(input: ${create}) { id } }`))[`create${type}`].id;
        const updated = (await ok(`mutation { update${type}(id: ${id}, input: ${update}) { id ${fields} } }`))[
          `update${type}`
        ];
        expect(updated).toEqual({ id, ...expected });
        const root = type.replace(/^./, (c) => c.toLowerCase());
        expect((await ok(`{ ${root}(id: ${id}) { id ${fields} } }`))[root]).toEqual(updated);
      },
    );

    it('updating a resource that does not exist is NOT_FOUND naming the type and id', async () => {
      await notFound(
        'mutation { updateCustomer(id: 999999, input: { email: "x@example.test" }) { id } }',
        undefined,
        /customer/i,
        999999,
      );
      await notFound(
        'mutation { updateProduct(id: 999998, input: { isSales: true }) { id } }',
        undefined,
        /product/i,
        999998,
      );
      await notFound(
        'mutation { updateUnit(id: 999997, input: { reference: "nope" }) { id } }',
        undefined,
        /unit/i,
        999997,
      );
      await notFound(
        'mutation { updateSupplier(id: 999996, input: { name: "nope" }) { id } }',
        undefined,
        /supplier/i,
        999996,
      );
    });
  });

  describe('localized text is merged key by key', () => {
    const read = async (id: number) =>
      (await ok(`{ product(id: ${id}) { name { nl fr en de } legalName { nl fr en de } } }`)).product;

    it('setting one language keeps the other three, and the other localized fields', async () => {
      const id = await createProduct(
        ', name: { nl: "Brood", fr: "Pain", en: "Bread", de: "Brot" }, legalName: { en: "Loaf" }',
      );
      const result = (
        await ok(
          `mutation { updateProduct(id: ${id}, input: { name: { fr: "Pain blanc" } }) { name { nl fr en de } legalName { nl fr en de } } }`,
        )
      ).updateProduct;
      const expected = {
        name: { nl: 'Brood', fr: 'Pain blanc', en: 'Bread', de: 'Brot' },
        legalName: { nl: null, fr: null, en: 'Loaf', de: null },
      };
      expect(result).toEqual(expected);
      expect(await read(id)).toEqual(expected);
    });

    it('null for one language clears only that language', async () => {
      const id = await createProduct(', name: { nl: "Brood", fr: "Pain", en: "Bread", de: "Brot" }');
      await ok(`mutation { updateProduct(id: ${id}, input: { name: { en: null } }) { id } }`);
      expect((await read(id)).name).toEqual({ nl: 'Brood', fr: 'Pain', en: null, de: 'Brot' });
      await ok(`mutation($name: LocalizedTextInput) { updateProduct(id: ${id}, input: { name: $name }) { id } }`, {
        name: { de: null, nl: 'Wit brood' },
      });
      expect((await read(id)).name).toEqual({ nl: 'Wit brood', fr: 'Pain', en: null, de: null });
    });

    it('the same merge on other types (unit description, currency description)', async () => {
      const unit = (
        await ok(
          `mutation { createUnit(input: { reference: "${unique('U')}", description: { nl: "stuk", en: "piece" } }) { id } }`,
        )
      ).createUnit.id;
      expect(
        (
          await ok(
            `mutation { updateUnit(id: ${unit}, input: { description: { de: "Stück" } }) { description { nl fr en de } } }`,
          )
        ).updateUnit.description,
      ).toEqual({ nl: 'stuk', fr: null, en: 'piece', de: 'Stück' });
      const currency = (
        await ok(
          `mutation { createCurrency(input: { alpha3Code: "${unusedCode('currency', provider)}", description: { en: "Zed", fr: "Zède" } }) { id } }`,
        )
      ).createCurrency.id;
      expect(
        (
          await ok(
            `mutation { updateCurrency(id: ${currency}, input: { description: { fr: null } }) { description { nl fr en de } } }`,
          )
        ).updateCurrency.description,
      ).toEqual({ nl: null, fr: null, en: 'Zed', de: null });
    });
  });

  describe('required fields', () => {
    it.each([
      ['product without reference', 'createProduct(input: { unitId: 1 })', 'reference'],
      ['product without unitId', `createProduct(input: { reference: "REQ-P" })`, 'unitId'],
      ['customer without name', `createCustomer(input: { reference: "REQ-C" })`, 'name'],
      ['customer without reference', 'createCustomer(input: { name: "x" })', 'reference'],
      ['supplier without name', `createSupplier(input: { reference: "REQ-S" })`, 'name'],
      ['unit without reference', 'createUnit(input: { description: { en: "x" } })', 'reference'],
      ['user without username', 'createUser(input: {})', 'username'],
      ['customer product without productId', 'createCustomerProduct(input: { customerId: 1 })', 'productId'],
    ])('%s: a 400 GraphQL validation error naming the field, nothing written', async (_label, field, name) => {
      const before =
        (await prisma().product.count()) +
        (await prisma().customer.count()) +
        (await prisma().supplier.count()) +
        (await prisma().unit.count());
      const res = await env.gql(`mutation { ${field} { id } }`);
      expect(res.status).toBe(400);
      expect(res.contentType).toMatch(/^application\/graphql-response\+json/);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors![0]!.message).toMatch(new RegExp(`\\b${name}\\b`));
      expect(
        (await prisma().product.count()) +
          (await prisma().customer.count()) +
          (await prisma().supplier.count()) +
          (await prisma().unit.count()),
      ).toBe(before);
    });

    it('a required field missing from an input given as a variable: a request error (400, no data) naming the field, nothing written', async () => {
      const reference = unique('P');
      const res = await env.gql('mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }', {
        input: { reference },
      });
      expect(res.body.errors?.[0]?.message).toMatch(/\bunitId\b/);
      expect(res.body.data).toBeUndefined();
      // GraphQL over HTTP, application/graphql-response+json: a response without `data`
      // (variable coercion failed, nothing executed) is a 4xx, like the validation errors above.
      expect(res.status).toBe(400);
      expect(await prisma().product.count({ where: { reference } })).toBe(0);
    });

    it.each([
      ['updateProduct', 'reference'],
      ['updateCustomer', 'name'],
      ['updateCustomer', 'reference'],
      ['updateSupplier', 'name'],
      ['updateUnit', 'reference'],
    ])('%s with %s: null is BAD_USER_INPUT naming the field; nothing changes', async (mutation, field) => {
      const id =
        mutation === 'updateProduct'
          ? await createProduct()
          : mutation === 'updateCustomer'
            ? await createCustomer()
            : mutation === 'updateSupplier'
              ? await createSupplier()
              : (await ok(`mutation { createUnit(input: { reference: "${unique('U')}" }) { id } }`)).createUnit.id;
      const type = mutation.slice('update'.length).replace(/^./, (c) => c.toLowerCase());
      const before = (await ok(`{ ${type}(id: ${id}) { reference modifiedDate } }`))[type];
      await refused(
        `mutation { ${mutation}(id: ${id}, input: { ${field}: null }) { id } }`,
        undefined,
        'BAD_USER_INPUT',
        field,
      );
      expect((await ok(`{ ${type}(id: ${id}) { reference modifiedDate } }`))[type]).toEqual(before);
    });

    it.each([
      ['updateProduct', 'isActive'],
      ['updateProduct', 'isSales'],
      ['updateProduct', 'isLotcontrolled'],
      ['updateCustomer', 'isProspect'],
      ['updateSupplier', 'isReceivalVatExclusive'],
    ])(
      '%s with %s: null (the schema lets it through; the value cannot be missing) is BAD_USER_INPUT naming the field, not an internal error',
      async (mutation, field) => {
        const id =
          mutation === 'updateProduct'
            ? await createProduct()
            : mutation === 'updateCustomer'
              ? await createCustomer()
              : await createSupplier();
        await refused(
          `mutation { ${mutation}(id: ${id}, input: { ${field}: null }) { id } }`,
          undefined,
          'BAD_USER_INPUT',
          field,
        );
      },
    );

    it('createProduct with isActive: null is BAD_USER_INPUT naming the field, and writes nothing', async () => {
      const reference = unique('P');
      await refused(
        `mutation { createProduct(input: { reference: "${reference}", unitId: 1, isActive: null }) { id } }`,
        undefined,
        'BAD_USER_INPUT',
        'isActive',
      );
      expect(await prisma().product.count({ where: { reference } })).toBe(0);
    });

    it('text longer than the service stores is BAD_USER_INPUT naming the field', async () => {
      const id = await createCustomer();
      await refused(
        `mutation($v: String) { updateCustomer(id: ${id}, input: { altName: $v }) { id } }`,
        { v: 'x'.repeat(10_000) },
        'BAD_USER_INPUT',
        'altName',
      );
    });
  });

  describe('uniqueness: CONFLICT naming the field, nothing written', () => {
    const cases: [string, (v: string) => string, string, () => string, (v: string) => Promise<number>][] = [
      [
        'unit reference',
        (v) => `createUnit(input: { reference: "${v}" })`,
        'reference',
        () => unique('U'),
        (v) => prisma().unit.count({ where: { reference: v } }),
      ],
      [
        'product reference',
        (v) => `createProduct(input: { reference: "${v}", unitId: 1 })`,
        'reference',
        () => unique('P'),
        (v) => prisma().product.count({ where: { reference: v } }),
      ],
      [
        'product gtin',
        (v) => `createProduct(input: { reference: "${unique('P')}", unitId: 1, gtin: "${v}" })`,
        'gtin',
        () => gtinOf(87),
        (v) => prisma().product.count({ where: { gtin: v } }),
      ],
      [
        'customer reference',
        (v) => `createCustomer(input: { reference: "${v}", name: "x" })`,
        'reference',
        () => unique('C'),
        (v) => prisma().customer.count({ where: { reference: v } }),
      ],
      [
        'supplier reference',
        (v) => `createSupplier(input: { reference: "${v}", name: "x" })`,
        'reference',
        () => unique('S'),
        (v) => prisma().supplier.count({ where: { reference: v } }),
      ],
      [
        'user username',
        (v) => `createUser(input: { username: "${v}" })`,
        'username',
        () => unique('user'),
        (v) => prisma().user.count({ where: { username: v } }),
      ],
      [
        'brand reference',
        (v) => `createBrand(input: { reference: "${v}" })`,
        'reference',
        () => unique('B'),
        (v) => prisma().brand.count({ where: { reference: v } }),
      ],
      [
        'language alpha2Code',
        (v) => `createLanguage(input: { alpha2Code: "${v}", description: "x" })`,
        'alpha2Code',
        () => unusedCode('language', provider),
        (v) => prisma().language.count({ where: { alpha_2_code: v } }),
      ],
      [
        'currency alpha3Code',
        (v) => `createCurrency(input: { alpha3Code: "${v}", symbol: "x" })`,
        'alpha3Code',
        () => unusedCode('currency', provider),
        (v) => prisma().currency.count({ where: { alpha_3_code: v } }),
      ],
      [
        'customer type reference (an integer)',
        (v) => `createCustomerType(input: { reference: ${v} })`,
        'reference',
        () => String(900_000 + ++counter),
        (v) => prisma().customerType.count({ where: { reference: Number(v) } }),
      ],
    ];

    it.each(cases)('create with a taken %s', async (_label, create, field, value, count) => {
      const v = value();
      await ok(`mutation { ${create(v)} { id } }`);
      const error = await refused(`mutation { ${create(v)} { id } }`, undefined, 'CONFLICT', field);
      expect(error.message).not.toMatch(/prisma|constraint|sqlite|postgres|duplicate key/i);
      expect(await count(v)).toBe(1);
    });

    it('update to a taken reference or gtin: CONFLICT naming the field, the row unchanged', async () => {
      const taken = unique('P');
      const gtin = gtinOf(88);
      await ok(`mutation { createProduct(input: { reference: "${taken}", unitId: 1, gtin: "${gtin}" }) { id } }`);
      const id = await createProduct(', consumerPrice: 1');
      const before = (await ok(`{ product(id: ${id}) { ${PRODUCT_FIELDS} } }`)).product;
      await refused(
        `mutation { updateProduct(id: ${id}, input: { reference: "${taken}", consumerPrice: 2 }) { id } }`,
        undefined,
        'CONFLICT',
        'reference',
      );
      await refused(
        `mutation { updateProduct(id: ${id}, input: { gtin: "${gtin}", consumerPrice: 2 }) { id } }`,
        undefined,
        'CONFLICT',
        'gtin',
      );
      expect((await ok(`{ product(id: ${id}) { ${PRODUCT_FIELDS} } }`)).product).toEqual(before);
    });

    it('update to its own current reference or gtin is no conflict', async () => {
      const reference = unique('P');
      const gtin = gtinOf(86);
      const id = (
        await ok(`mutation { createProduct(input: { reference: "${reference}", unitId: 1, gtin: "${gtin}" }) { id } }`)
      ).createProduct.id;
      expect(
        (
          await ok(
            `mutation { updateProduct(id: ${id}, input: { reference: "${reference}", gtin: "${gtin}", isSales: true }) { reference gtin isSales } }`,
          )
        ).updateProduct,
      ).toEqual({ reference, gtin, isSales: true });
    });

    it('update to a taken username', async () => {
      const [u1, u2] = users as [number, number];
      const taken = (await ok(`{ user(id: ${u1}) { username } }`)).user.username;
      await refused(
        `mutation { updateUser(id: ${u2}, input: { username: "${taken}" }) { id } }`,
        undefined,
        'CONFLICT',
        'username',
      );
    });

    it('gtin is unique only where given: many products without one, and one may be cleared', async () => {
      const a = await createProduct();
      const b = await createProduct();
      const c = await createProduct(`, gtin: "${gtinOf(89)}"`);
      expect(
        (await ok(`mutation { updateProduct(id: ${c}, input: { gtin: null }) { gtin } }`)).updateProduct.gtin,
      ).toBeNull();
      expect(await ok(`{ a: product(id: ${a}) { gtin } b: product(id: ${b}) { gtin } }`)).toEqual({
        a: { gtin: null },
        b: { gtin: null },
      });
    });

    it('two concurrent creates with the same reference: one wins, the other is CONFLICT (never an internal error)', async () => {
      const reference = unique('U');
      const results = await Promise.all(
        [0, 1, 2].map(() => env.gql(`mutation { createUnit(input: { reference: "${reference}" }) { id } }`)),
      );
      const codes = results.map((r) => r.body.errors?.[0]?.extensions?.code ?? 'OK').sort();
      expect(codes).toEqual(['CONFLICT', 'CONFLICT', 'OK']);
      expect(await prisma().unit.count({ where: { reference } })).toBe(1);
    });
  });

  describe('to-one relationships', () => {
    it.each([
      [
        'createCustomer customerTypeId',
        (r: string) => `createCustomer(input: { reference: "${r}", name: "x", customerTypeId: 999999 })`,
        /customer.?types?/i,
      ],
      [
        'createCustomer accountManagerId',
        (r: string) => `createCustomer(input: { reference: "${r}", name: "x", accountManagerId: 999999 })`,
        /users?/i,
      ],
      ['createProduct unitId', (r: string) => `createProduct(input: { reference: "${r}", unitId: 999999 })`, /units?/i],
      [
        'createProduct productGroupId',
        (r: string) => `createProduct(input: { reference: "${r}", unitId: 1, productGroupId: 999999 })`,
        /product.?groups?/i,
      ],
      [
        'createProduct preferredSupplierId',
        (r: string) => `createProduct(input: { reference: "${r}", unitId: 1, preferredSupplierId: 999999 })`,
        /suppliers?/i,
      ],
      [
        'createSupplier currencyId',
        (r: string) => `createSupplier(input: { reference: "${r}", name: "x", currencyId: 999999 })`,
        /currenc/i,
      ],
    ])(
      'a target that does not exist (%s): NOT_FOUND naming its type and id; nothing written',
      async (_label, create, type) => {
        const reference = unique('R');
        await notFound(`mutation { ${create(reference)} { id } }`, undefined, type, 999999);
        const rows =
          (await prisma().product.count({ where: { reference } })) +
          (await prisma().customer.count({ where: { reference } })) +
          (await prisma().supplier.count({ where: { reference } }));
        expect(rows).toBe(0);
      },
    );

    it('createCustomerProduct for a customer that does not exist: NOT_FOUND', async () => {
      const productId = await createProduct();
      await notFound(
        `mutation { createCustomerProduct(input: { customerId: 999999, productId: ${productId} }) { id } }`,
        undefined,
        /customers?/i,
        999999,
      );
      expect(await prisma().customerProduct.count({ where: { product_id: productId } })).toBe(0);
    });

    it('update to a target that does not exist: NOT_FOUND, the row unchanged', async () => {
      const id = await createProduct(', productGroupId: 1');
      await notFound(
        `mutation { updateProduct(id: ${id}, input: { productGroupId: 999999 }) { id } }`,
        undefined,
        /product.?groups?/i,
        999999,
      );
      await notFound(
        `mutation { updateProduct(id: ${id}, input: { brandId: 999998 }) { id } }`,
        undefined,
        /brands?/i,
        999998,
      );
      expect((await ok(`{ product(id: ${id}) { productGroup { id } brand { id } } }`)).product).toEqual({
        productGroup: { id: 1 },
        brand: null,
      });
    });

    it.each(['productGroupId', 'brandId', 'productionLineId'])(
      'product %s: null removes the link (the spec allows it)',
      async (field) => {
        const id = await createProduct(', productGroupId: 1, brandId: 1, productionLineId: 1');
        const result = (
          await ok(
            `mutation { updateProduct(id: ${id}, input: { ${field}: null }) { productGroup { id } brand { id } productionLine { id } } }`,
          )
        ).updateProduct;
        const relationship = field.slice(0, -2);
        expect(result[relationship]).toBeNull();
        const read = (await ok(`{ product(id: ${id}) { productGroup { id } brand { id } productionLine { id } } }`))
          .product;
        expect(read).toEqual({
          productGroup: { id: 1 },
          brand: { id: 1 },
          productionLine: { id: 1 },
          [relationship]: null,
        });
      },
    );

    it.each([
      ['updateCustomer', 'customerTypeId', 'customerType'],
      ['updateCustomer', 'languageId', 'language'],
      ['updateCustomer', 'currencyId', 'currency'],
      ['updateCustomer', 'accountManagerId', 'accountManager'],
      ['updateCustomer', 'customerServiceManagerId', 'customerServiceManager'],
      ['updateCustomer', 'addressId', 'address'],
      ['updateSupplier', 'currencyId', 'currency'],
      ['updateSupplier', 'addressId', 'address'],
      ['updateSupplier', 'buyerId', 'buyer'],
      ['updateSupplier', 'keyUserId', 'keyUser'],
      ['updateProduct', 'unitId', 'unit'],
      ['updateProduct', 'preferredSupplierId', 'preferredSupplier'],
      ['updateProductGroup', 'typeId', 'type'],
    ])(
      '%s %s: null is BAD_USER_INPUT naming the field (the link cannot be removed); the link stays',
      async (mutation, field, relationship) => {
        const u = users[0]!;
        let id: number;
        if (mutation === 'updateCustomer')
          id = await createCustomer(
            `, customerTypeId: 1, languageId: 1, currencyId: 1, accountManagerId: ${u}, customerServiceManagerId: ${u}, addressId: 1`,
          );
        else if (mutation === 'updateSupplier')
          id = await createSupplier(`, currencyId: 1, addressId: 1, buyerId: ${u}, keyUserId: ${u}`);
        else if (mutation === 'updateProduct') id = await createProduct(', preferredSupplierId: 1');
        else id = (await ok('mutation { createProductGroup(input: { typeId: 1 }) { id } }')).createProductGroup.id;
        const type = mutation.slice('update'.length).replace(/^./, (c) => c.toLowerCase());
        const before = (await ok(`{ ${type}(id: ${id}) { ${relationship} { id } } }`))[type][relationship];
        expect(before).not.toBeNull();
        await refused(
          `mutation { ${mutation}(id: ${id}, input: { ${field}: null }) { id } }`,
          undefined,
          'BAD_USER_INPUT',
          field,
        );
        expect((await ok(`{ ${type}(id: ${id}) { ${relationship} { id } } }`))[type][relationship]).toEqual(before);
      },
    );
  });

  describe('to-many relationships', () => {
    const types = async (id: number) => sorted((await ok(`{ supplier(id: ${id}) { types { id } } }`)).supplier.types);

    it('set replaces all links; set: [] removes them all', async () => {
      const [t1, t2, t3, t4] = supplierTypes as [number, number, number, number];
      const id = await createSupplier(`, types: { set: [${t1}, ${t2}] }`);
      const result = (
        await ok(`mutation { updateSupplier(id: ${id}, input: { types: { set: [${t3}, ${t4}] } }) { types { id } } }`)
      ).updateSupplier;
      expect(sorted(result.types)).toEqual([t3, t4]);
      expect(await types(id)).toEqual([t3, t4]);
      await ok(`mutation { updateSupplier(id: ${id}, input: { types: { set: [] } }) { id } }`);
      expect(await types(id)).toEqual([]);
    });

    it('add and remove change some links and keep the rest', async () => {
      const [t1, t2, t3, t4] = supplierTypes as [number, number, number, number];
      const id = await createSupplier(`, types: { set: [${t1}, ${t2}] }`);
      const result = (
        await ok(
          `mutation { updateSupplier(id: ${id}, input: { types: { add: [${t3}, ${t4}], remove: [${t1}] } }) { types { id } } }`,
        )
      ).updateSupplier;
      expect(sorted(result.types)).toEqual([t2, t3, t4]);
      expect(await types(id)).toEqual([t2, t3, t4]);
    });

    it('adding an id already present keeps one link', async () => {
      const [t1, t2] = supplierTypes as [number, number];
      const id = await createSupplier(`, types: { set: [${t1}] }`);
      const result = (
        await ok(
          `mutation { updateSupplier(id: ${id}, input: { types: { add: [${t1}, ${t2}, ${t2}] } }) { types { id } } }`,
        )
      ).updateSupplier;
      expect(sorted(result.types)).toEqual([t1, t2]);
      expect(await prisma().supplierTypeLink.count({ where: { supplier_id: id } })).toBe(2);
    });

    it('removing an id not present is no error', async () => {
      const [t1, t2, t3] = supplierTypes as [number, number, number];
      const id = await createSupplier(`, types: { set: [${t1}, ${t2}] }`);
      const result = (
        await ok(
          `mutation { updateSupplier(id: ${id}, input: { types: { remove: [${t3}, 999999] } }) { types { id } } }`,
        )
      ).updateSupplier;
      expect(sorted(result.types)).toEqual([t1, t2]);
    });

    it("the same rules on a customer's users and function groups", async () => {
      const [u1, u2, u3] = users as [number, number, number];
      const [f1, f2] = functionGroups as [number, number];
      const id = await createCustomer(
        `, informOnComplaintUsers: { set: [${u1}, ${u3}] }, informOnComplaintFunctions: { set: [${f1}] }, commercialResolveResponsibleUsers: { set: [${u1}] }`,
      );
      const result = (
        await ok(`mutation { updateCustomer(id: ${id}, input: {
        informOnComplaintUsers: { add: [${u1}, ${u2}], remove: [${u3}] }, informOnComplaintFunctions: { set: [${f2}] },
        commercialResolveResponsibleUsers: { remove: [${u1}] } }) { informOnComplaintUsers { id } informOnComplaintFunctions { id } commercialResolveResponsibleUsers { id } } }`)
      ).updateCustomer;
      expect(sorted(result.informOnComplaintUsers)).toEqual([u1, u2]);
      expect(sorted(result.informOnComplaintFunctions)).toEqual([f2]);
      expect(result.commercialResolveResponsibleUsers).toEqual([]);
    });

    it('concurrent adds of the same id all succeed and keep one link (add is idempotent)', async () => {
      const [t1] = supplierTypes as [number];
      const id = await createSupplier();
      const results = await Promise.all(
        [0, 1, 2].map(() =>
          env.gql(`mutation { updateSupplier(id: ${id}, input: { types: { add: [${t1}] } }) { id } }`),
        ),
      );
      expect(results.map((r) => r.body.errors?.[0] ?? 'OK')).toEqual(['OK', 'OK', 'OK']);
      expect(await types(id)).toEqual([t1]);
    });

    it('several mutations in one document: each answer shows the links as they are after it', async () => {
      const [t1, t2, t3] = supplierTypes as [number, number, number];
      const id = await createSupplier(`, types: { set: [${t1}] }`);
      const data = await ok(`mutation {
        a: updateSupplier(id: ${id}, input: { types: { add: [${t2}] } }) { types { id } }
        b: updateSupplier(id: ${id}, input: { types: { add: [${t3}] } }) { types { id } }
        c: updateSupplier(id: ${id}, input: { types: { remove: [${t1}] } }) { types { id } }
      }`);
      expect(sorted(data.a.types)).toEqual([t1, t2]);
      expect(sorted(data.b.types)).toEqual([t1, t2, t3]);
      expect(sorted(data.c.types)).toEqual([t2, t3]);
    });

    it('several mutations in one document: a to-one link read after a later change shows the change', async () => {
      const product = await createProduct(', productGroupId: 1');
      const data = await ok(`mutation {
        a: updateProduct(id: ${product}, input: { isSales: true }) { productGroup { id } }
        b: updateProduct(id: ${product}, input: { productGroupId: 2 }) { productGroup { id } }
      }`);
      expect(data).toEqual({ a: { productGroup: { id: 1 } }, b: { productGroup: { id: 2 } } });
    });

    it('several mutations in one document: a reverse link shows a row created before it', async () => {
      const customer = await createCustomer();
      const product = await createProduct();
      const data = await ok(`mutation {
        a: updateCustomer(id: ${customer}, input: {}) { customerProducts { totalCount nodes { id } } }
        b: createCustomerProduct(input: { customerId: ${customer}, productId: ${product} }) { id }
        c: updateCustomer(id: ${customer}, input: {}) { customerProducts { totalCount nodes { id } } }
      }`);
      expect(data.a.customerProducts).toEqual({ totalCount: 0, nodes: [] });
      expect(data.c.customerProducts).toEqual({ totalCount: 1, nodes: [{ id: data.b.id }] });
    });

    it.each([
      ['set and add', '{ set: [T1], add: [T2] }'],
      ['set and remove', '{ set: [T1], remove: [T2] }'],
    ])('%s together is BAD_USER_INPUT naming the field; nothing changes', async (_label, change) => {
      const [t1, t2, t3] = supplierTypes as [number, number, number];
      const id = await createSupplier(`, name: "Before", types: { set: [${t3}] }`);
      const value = change.replace('T1', String(t1)).replace('T2', String(t2));
      await refused(
        `mutation { updateSupplier(id: ${id}, input: { name: "After", types: ${value} }) { id } }`,
        undefined,
        'BAD_USER_INPUT',
        'types',
      );
      expect((await ok(`{ supplier(id: ${id}) { name types { id } } }`)).supplier).toEqual({
        name: 'Before',
        types: [{ id: t3 }],
      });
    });

    it('a target that does not exist, in set or add: NOT_FOUND naming type and id; links unchanged', async () => {
      const [t1, t2] = supplierTypes as [number, number];
      const id = await createSupplier(`, types: { set: [${t1}] }`);
      await notFound(
        `mutation { updateSupplier(id: ${id}, input: { types: { set: [${t2}, 999999] } }) { id } }`,
        undefined,
        /supplier.?types?/i,
        999999,
      );
      await notFound(
        `mutation { updateSupplier(id: ${id}, input: { types: { add: [999998] } }) { id } }`,
        undefined,
        /supplier.?types?/i,
        999998,
      );
      expect(await types(id)).toEqual([t1]);
      const customer = await createCustomer();
      await notFound(
        `mutation { updateCustomer(id: ${customer}, input: { commercialResolveResponsibleUsers: { add: [999997] } }) { id } }`,
        undefined,
        /users?/i,
        999997,
      );
    });
  });

  describe('always refused: FORBIDDEN', () => {
    it("a customer product's customerId and productId cannot be changed; the row stays as it was", async () => {
      const customerId = await createCustomer();
      const other = await createCustomer();
      const productId = await createProduct();
      const otherProduct = await createProduct();
      const cp = (
        await ok(
          `mutation { createCustomerProduct(input: { customerId: ${customerId}, productId: ${productId}, externalReference: "A" }) { id } }`,
        )
      ).createCustomerProduct.id;
      const e1 = await refused(
        `mutation { updateCustomerProduct(id: ${cp}, input: { customerId: ${other}, externalReference: "B" }) { id } }`,
        undefined,
        'FORBIDDEN',
        'customerId',
      );
      const e2 = await refused(
        `mutation { updateCustomerProduct(id: ${cp}, input: { productId: ${otherProduct}, externalReference: "B" }) { id } }`,
        undefined,
        'FORBIDDEN',
        'productId',
      );
      expect(e1.message.length).toBeGreaterThan(20);
      expect(e2.message.length).toBeGreaterThan(20);
      expect(
        (await ok(`{ customerProduct(id: ${cp}) { externalReference customer { id } product { id } } }`))
          .customerProduct,
      ).toEqual({ externalReference: 'A', customer: { id: customerId }, product: { id: productId } });
    });

    it("a product's productStructureId cannot be set (nor removed); the product stays as it was", async () => {
      const structure = (await ok('{ productStructures(first: 1) { nodes { id product { id } } } }')).productStructures
        .nodes[0];
      const id = await createProduct(', consumerPrice: 1');
      await refused(
        `mutation { updateProduct(id: ${id}, input: { productStructureId: ${structure.id}, consumerPrice: 2 }) { id } }`,
        undefined,
        'FORBIDDEN',
        'productStructureId',
      );
      await refused(
        `mutation { updateProduct(id: ${structure.product.id}, input: { productStructureId: null }) { id } }`,
        undefined,
        'FORBIDDEN',
        'productStructureId',
      );
      expect((await ok(`{ product(id: ${id}) { consumerPrice productStructure { id } } }`)).product).toEqual({
        consumerPrice: 1,
        productStructure: null,
      });
      expect(
        (await ok(`{ product(id: ${structure.product.id}) { productStructure { id } } }`)).product.productStructure,
      ).toEqual({ id: structure.id });
      // Given as it already is (as a document read back and sent again), it is no change, and no error.
      expect(
        (await ok(`mutation { updateProduct(id: ${id}, input: { productStructureId: null }) { id } }`)).updateProduct,
      ).toEqual({ id });
    });

    it('the FORBIDDEN message for productStructureId says what to use instead in GraphQL terms (createProductStructure)', async () => {
      const id = await createProduct();
      const error = await refused(
        `mutation { updateProduct(id: ${id}, input: { productStructureId: 1 }) { id } }`,
        undefined,
        'FORBIDDEN',
        'productStructureId',
      );
      expect(error.message).toContain('createProductStructure');
    });

    it('there is no way to add a structure or an item outside their owner', async () => {
      for (const field of [
        'createProductStructureItem(input: { productId: 1 }) { id }',
        'createProductStructure(input: { quantity: 1 }) { id }',
      ]) {
        const res = await env.gql(`mutation { ${field} }`);
        expect(res.status).toBe(400);
        expect(res.body.errors?.length).toBeGreaterThan(0);
      }
    });
  });

  describe('decimals are exact', () => {
    const read = async (id: number) => (await ok(`{ product(id: ${id}) { nlc consumerPrice } }`)).product;

    it.each([
      ['a number literal', 'nlc: 0.1, consumerPrice: 12345.6789', undefined],
      ['a string literal', 'nlc: "0.1", consumerPrice: "12345.6789"', undefined],
      ['number variables', 'nlc: $a, consumerPrice: $b', { a: 0.1, b: 12345.6789 }],
      ['string variables', 'nlc: $a, consumerPrice: $b', { a: '0.1', b: '12345.6789' }],
    ])(
      '0.1 and 12345.6789 as %s read back exactly, in the answer, by query and in the database',
      async (_label, fields, variables) => {
        const reference = unique('D');
        const declare = variables ? '($a: Decimal, $b: Decimal)' : '';
        const created = (
          await ok(
            `mutation${declare} { createProduct(input: { reference: "${reference}", unitId: 1, ${fields} }) { id nlc consumerPrice } }`,
            variables,
          )
        ).createProduct;
        expect(created).toMatchObject({ nlc: 0.1, consumerPrice: 12345.6789 });
        expect(await read(created.id)).toEqual({ nlc: 0.1, consumerPrice: 12345.6789 });
        const row = await prisma().product.findUniqueOrThrow({ where: { id: created.id } });
        expect(row.nlc?.toString()).toBe('0.1');
        expect(row.consumer_price?.toString()).toBe('12345.6789');
      },
    );

    it('15 significant digits survive, large and small', async () => {
      const id = await createProduct();
      const values = { a: 123456789.012345, b: '0.000123456789012345' };
      const updated = (
        await ok(
          `mutation($a: Decimal, $b: Decimal) { updateProduct(id: ${id}, input: { nlc: $a, consumerPrice: $b }) { nlc consumerPrice } }`,
          values,
        )
      ).updateProduct;
      expect(updated).toEqual({ nlc: 123456789.012345, consumerPrice: 0.000123456789012345 });
      expect(await read(id)).toEqual(updated);
    });

    it('a whole input given as one variable keeps its decimals exact', async () => {
      const reference = unique('D');
      const created = (
        await ok(
          'mutation($input: CreateProductInput!) { createProduct(input: $input) { id nlc shelfLife { value } } }',
          {
            input: { reference, unitId: 1, nlc: 0.3, shelfLife: { value: '1.1', interval: 'Days' } },
          },
        )
      ).createProduct;
      expect(created).toMatchObject({ nlc: 0.3, shelfLife: { value: 1.1 } });
    });

    const TOO_PRECISE = '1234567890.123456'; // 16 significant digits

    it.each([
      ['a number literal', TOO_PRECISE, undefined],
      ['a number variable', '$v', { v: Number(TOO_PRECISE) }],
      ['a float sum with drift', '$v', { v: 1234567890 + 0.1 + 0.023456 }],
    ])('more than 15 significant digits as %s: the double is read at 15', async (_label, value, variables) => {
      const res = await env.gql(
        `mutation${variables ? '($v: Decimal)' : ''} { createProduct(input: { reference: "${unique('D')}", unitId: 1, nlc: ${value} }) { id nlc } }`,
        variables,
      );
      expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
      const { id, nlc } = res.body.data!.createProduct;
      expect(nlc).toBe(1234567890.12346);
      expect((await prisma().product.findUniqueOrThrow({ where: { id } })).nlc?.toString()).toBe('1234567890.12346');
    });

    it('more than 15 significant digits as a string literal: BAD_USER_INPUT, nothing written', async () => {
      const reference = unique('D');
      const res = await env.gql(
        `mutation { createProduct(input: { reference: "${reference}", unitId: 1, nlc: "${TOO_PRECISE}" }) { id } }`,
      );
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(await prisma().product.count({ where: { reference } })).toBe(0);
    });

    it('more than 15 significant digits as a string variable: BAD_USER_INPUT, nothing written', async () => {
      const reference = unique('D');
      const res = await env.gql(
        `mutation($v: Decimal) { createProduct(input: { reference: "${reference}", unitId: 1, nlc: $v }) { id } }`,
        { v: TOO_PRECISE },
      );
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(
        Object.values(res.body.data ?? {}).every((v) => v === null),
        JSON.stringify(res.body.data),
      ).toBe(true);
      expect(await prisma().product.count({ where: { reference } })).toBe(0);
    });

    it('more than 15 significant digits on update: refused, the product unchanged', async () => {
      const id = await createProduct(', nlc: 1.5');
      const res = await env.gql(
        `mutation($input: UpdateProductInput!) { updateProduct(id: ${id}, input: $input) { id } }`,
        { input: { nlc: TOO_PRECISE, isSales: true } },
      );
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect((await ok(`{ product(id: ${id}) { nlc isSales } }`)).product).toEqual({ nlc: 1.5, isSales: false });
    });

    it('the refusal of a too-precise decimal string literal names the field', async () => {
      const res = await env.gql(
        `mutation { createProduct(input: { reference: "${unique('D')}", unitId: 1, nlc: "${TOO_PRECISE}" }) { id } }`,
      );
      const error = res.body.errors![0]!;
      expect(error.extensions?.code).toBe('BAD_USER_INPUT');
      expect(error.extensions?.field ?? error.message).toMatch(/\bnlc\b/);
    });

    it('the refusal of a too-precise decimal inside an input variable names the variable and the field', async () => {
      const res = await env.gql('mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }', {
        input: { reference: unique('D'), unitId: 1, nlc: TOO_PRECISE },
      });
      const error = res.body.errors![0]!;
      expect(error.extensions?.code).toBe('BAD_USER_INPUT');
      if (error.extensions?.field !== 'nlc') {
        // graphql-js says: Variable "$input" got invalid value "…" at "input.nlc"; <why>
        expect(error.message).toContain('$input');
        expect(error.message).toMatch(/\bnlc\b/);
      }
    });

    it('not a number: BAD_USER_INPUT', async () => {
      const res = await env.gql(
        `mutation { createProduct(input: { reference: "${unique('D')}", unitId: 1, nlc: "twelve" }) { id } }`,
      );
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });
  });

  describe('text the database cannot store', () => {
    it('a NUL character in a string variable: BAD_USER_INPUT, nothing written', async () => {
      const before = await prisma().unit.count();
      const res = await env.gql('mutation($ref: String!) { createUnit(input: { reference: $ref }) { id } }', {
        ref: 'ab\u0000cd',
      });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(
        Object.values(res.body.data ?? {}).every((v) => v === null),
        JSON.stringify(res.body.data),
      ).toBe(true);
      expect(await prisma().unit.count()).toBe(before);
    });

    it('a NUL character inside an input variable (localized text): BAD_USER_INPUT naming the field, nothing written', async () => {
      const reference = unique('P');
      const res = await env.gql('mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }', {
        input: { reference, unitId: 1, name: { en: 'bread\u0000' } },
      });
      const error = res.body.errors![0]!;
      expect(error.extensions?.code).toBe('BAD_USER_INPUT');
      expect(error.extensions?.field ?? error.message).toMatch(/\bname\b/);
      expect(await prisma().product.count({ where: { reference } })).toBe(0);
    });

    it('a NUL character on update: refused, the row unchanged', async () => {
      const id = await createCustomer(', email: "kept@example.test"');
      const res = await env.gql(
        `mutation($v: String) { updateCustomer(id: ${id}, input: { email: $v, phone: "1" }) { id } }`,
        { v: 'x\u0000@example.test' },
      );
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect((await ok(`{ customer(id: ${id}) { email phone } }`)).customer).toEqual({
        email: 'kept@example.test',
        phone: null,
      });
    });

    it('a NUL character written as an escape in the query text: BAD_USER_INPUT, nothing written', async () => {
      const reference = unique('U');
      const res = await env.gql(
        `mutation { createUnit(input: { reference: "${reference}", description: { en: "a\\u0000b" } }) { id } }`,
      );
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(await prisma().unit.count({ where: { reference } })).toBe(0);
    });

    it('a lone surrogate (not valid Unicode) in a variable: BAD_USER_INPUT, nothing written', async () => {
      const before = await prisma().unit.count();
      const res = await env.gql('mutation($ref: String!) { createUnit(input: { reference: $ref }) { id } }', {
        ref: 'a\ud800b',
      });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(await prisma().unit.count()).toBe(before);
    });
  });

  describe('a failed mutation leaves the database unchanged', () => {
    it('an update with one bad relationship applies none of its attribute changes (modifiedDate included)', async () => {
      const id = await createCustomer(', email: "old@example.test", customerTypeId: 1');
      const before = (await ok(`{ customer(id: ${id}) { ${CUSTOMER_FIELDS} } }`)).customer;
      await sleep(10);
      await notFound(
        `mutation { updateCustomer(id: ${id}, input: { email: "new@example.test", altName: "New", customerTypeId: 999999 }) { id } }`,
        undefined,
        /customer.?types?/i,
        999999,
      );
      expect((await ok(`{ customer(id: ${id}) { ${CUSTOMER_FIELDS} } }`)).customer).toEqual(before);
    });

    it('an update with a to-many change and a refused to-one change applies neither', async () => {
      const [t1, t2] = supplierTypes as [number, number];
      const id = await createSupplier(`, name: "Before", currencyId: 1, types: { set: [${t1}] }`);
      await refused(
        `mutation { updateSupplier(id: ${id}, input: { name: "After", types: { add: [${t2}] }, currencyId: null }) { id } }`,
        undefined,
        'BAD_USER_INPUT',
        'currencyId',
      );
      const read = (await ok(`{ supplier(id: ${id}) { name currency { id } types { id } } }`)).supplier;
      expect(read).toEqual({ name: 'Before', currency: { id: 1 }, types: [{ id: t1 }] });
    });

    it('a create whose to-many link is missing writes no row and no links', async () => {
      const reference = unique('C');
      const [u1] = users as [number];
      const links = await prisma().customerInformOnComplaintUser.count();
      await notFound(
        `mutation { createCustomer(input: { reference: "${reference}", name: "x", informOnComplaintUsers: { set: [${u1}, 999999] } }) { id } }`,
        undefined,
        /users?/i,
        999999,
      );
      expect(await prisma().customer.count({ where: { reference } })).toBe(0);
      expect(await prisma().customerInformOnComplaintUser.count()).toBe(links);
      expect(
        (await ok(`{ customers(filter: { reference: "${reference}" }) { totalCount } }`)).customers.totalCount,
      ).toBe(0);
    });

    it('a refused update (FORBIDDEN) applies none of its attribute changes', async () => {
      const id = await createProduct(', consumerPrice: 1, name: { en: "Kept" }');
      await refused(
        `mutation { updateProduct(id: ${id}, input: { consumerPrice: 2, name: { en: "Changed" }, productStructureId: 1 }) { id } }`,
        undefined,
        'FORBIDDEN',
      );
      expect((await ok(`{ product(id: ${id}) { consumerPrice name { en } } }`)).product).toEqual({
        consumerPrice: 1,
        name: { en: 'Kept' },
      });
    });
  });
});
