/**
 * Writing (rest.md "Writing"): every validation rule with its status and code, relationship
 * targets that must exist, links that cannot be removed, body limits and media types, what the
 * server maintains itself, localized text merged key by key, exact decimals, and one transaction
 * per write: a refused write leaves the database as it was (checked with counts and reads).
 */
import { describe, expect, it } from 'vitest';
import { resourceByType, resources } from '../../src/resources/registry.ts';
import { testApp } from '../support/app.ts';
import { providers } from '../support/databases.ts';
import {
  ATOM,
  expectShapeA,
  expectShapeB,
  expectStatus,
  identifier,
  MISSING_ID,
  restSuite,
  sortIds,
} from './support.ts';

/** rest.md "Required on ADD". */
const REQUIRED: [type: string, field: string, kind: 'attribute' | 'relationship'][] = [
  ...[
    'customers',
    'products',
    'suppliers',
    'units',
    'brands',
    'production_lines',
    'function_corporate_groups',
    'customer_types',
  ].map((type) => [type, 'reference', 'attribute'] as [string, string, 'attribute']),
  ['customers', 'name', 'attribute'],
  ['suppliers', 'name', 'attribute'],
  ['products', 'unit', 'relationship'],
  ['users', 'username', 'attribute'],
];

/** Values of the wrong JSON type or out of range, per attribute. */
const INVALID: [type: string, attribute: string, value: unknown][] = [
  ['customers', 'reference', 123],
  ['customers', 'name', true],
  ['customers', 'email', ['a@b.c']],
  ['customers', 'is_active', 'yes'],
  ['customers', 'is_active', 1],
  ['customers', 'is_active', null],
  ['customers', 'credit_limit_used', 'a lot'],
  ['customers', 'credit_limit_used', { value: 1 }],
  ['customers', 'credit_limit_used', true],
  ['customer_types', 'reference', 1.5],
  ['customer_types', 'reference', '10'],
  ['customer_types', 'reference', 2147483648],
  ['products', 'name', 'Bread'],
  ['products', 'name', { en: 5 }],
  ['products', 'name', { xx: 'Bread' }],
  ['products', 'legal_name', ['Bread']],
  ['products', 'gtin', 5412345678908],
  ['products', 'consumer_price', true],
  ['products', 'shelf_life', 'seven days'],
  ['products', 'shelf_life', { value: 'seven', interval: 'Days' }],
  ['products', 'shelf_life', { value: 7, interval: 'Days', unit: 'd' }],
  ['product_groups', 'inform_days_bbd', 'three'],
  ['product_groups', 'inform_days_bbd', 2.5],
  ['product_groups', 'transport_packaging_settings', { remove_stock_when_picked: 'yes' }],
  ['product_structures', 'quantity', 0],
  ['product_structures', 'quantity', -5],
  ['product_structures', 'quantity', null],
  ['product_structure_items', 'net_quantity', 'two'],
  ['suppliers', 'is_emergency_number_mandatory', 'no'],
  ['production_lines', 'name', 'Line 1'],
  ['customers', 'name', 'NUL \u0000 inside'],
  ['brands', 'reference', 'lone surrogate \ud800'],
];

describe.each(providers)('REST writes on %s', (provider) => {
  const api = restSuite(provider);

  const read = async (type: string, id: number) => (await api.ok('GET', `/${type}/${id}`)).data;

  /** Runs `write`, expecting it refused, and proves the resource and the row counts are as before. */
  async function unchanged(
    type: string,
    id: number | undefined,
    write: () => Promise<void>,
    counted: string[] = [],
  ): Promise<void> {
    const before = id === undefined ? undefined : await read(type, id);
    const counts = await Promise.all([type, ...counted].map((t) => api.count(t)));
    await write();
    if (id !== undefined) expect(await read(type, id)).toEqual(before);
    expect(await Promise.all([type, ...counted].map((t) => api.count(t)))).toEqual(counts);
  }

  describe('unknown fields: 400 unknown_field naming them, nothing written', () => {
    it.each(resources.filter((r) => r.operations.includes('add')).map((r) => r.type))(
      '%s: unknown attribute and relationship on ADD and UPDATE',
      async (type) => {
        const existing = await api.create(type);
        for (const [member, name] of [
          ['attributes', 'colour'],
          ['relationships', 'owner'],
        ] as const) {
          const body = await api.addBody(type);
          (body.data as any)[member][name] = member === 'attributes' ? 'red' : { data: null };
          await unchanged(type, existing.id, async () => {
            const add = await api.post(`/${type}`, body);
            expectShapeB(add, 400, 'unknown_field', `ADD ${type} ${member}.${name}`);
            expect(add.body.error.message).toContain(name);
            const update = await api.patch(`/${type}/${existing.id}`, {
              data: { type, [member]: { [name]: member === 'attributes' ? 'red' : { data: null } } },
            });
            expectShapeB(update, 400, 'unknown_field', `UPDATE ${type} ${member}.${name}`);
            expect(update.body.error.message).toContain(name);
          });
        }
      },
    );
  });

  describe('wrong JSON type or out of range: 400 invalid_attribute naming the attribute', () => {
    it.each(INVALID)('%s.%s = %j', async (type, attribute, value) => {
      const existing = await api.create(type);
      await unchanged(type, existing.id, async () => {
        const update = await api.patch(`/${type}/${existing.id}`, {
          data: { type, attributes: { [attribute]: value } },
        });
        expectShapeB(update, 400, 'invalid_attribute', `UPDATE ${type}.${attribute}`);
        expect(update.body.error.message).toContain(attribute);
        if (resourceByType(type)!.operations.includes('add')) {
          const add = await api.post(`/${type}`, await api.addBody(type, { attributes: { [attribute]: value } }));
          expectShapeB(add, 400, 'invalid_attribute', `ADD ${type}.${attribute}`);
          expect(add.body.error.message).toContain(attribute);
        }
      });
    });

    it('a required attribute cannot be set to null on UPDATE', async () => {
      const customer = await api.create('customers');
      await unchanged('customers', customer.id, async () => {
        expectShapeB(
          await api.patch(`/customers/${customer.id}`, {
            data: { type: 'customers', attributes: { reference: null } },
          }),
          400,
          'invalid_attribute',
        );
      });
    });
  });

  describe('malformed bodies and media types', () => {
    it.each(['{', '{"data": ', "{'data': {}}", '{"data": {"type": "customers",}}', 'data=1', '\u00ff\u00fe'])(
      'malformed JSON %j: 400 invalid_json',
      async (raw) => {
        await unchanged('customers', 1, async () => {
          expectShapeB(await api.request('POST', '/customers', { raw }), 400, 'invalid_json', 'ADD');
          expectShapeB(await api.request('PATCH', '/customers/1', { raw }), 400, 'invalid_json', 'UPDATE');
          expectShapeB(
            await api.request('PATCH', '/customers/1/relationships/language', { raw }),
            400,
            'invalid_json',
            'REL-SET',
          );
          expectShapeB(
            await api.request('POST', '/customers/1/relationships/inform_on_complaint_users', { raw }),
            400,
            'invalid_json',
            'REL-ADD',
          );
        });
      },
    );

    it('an empty body with a JSON content type: 400 invalid_json', async () => {
      expectShapeB(await api.request('POST', '/customers', { raw: '' }), 400, 'invalid_json');
    });

    it.each([
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'text/json',
      null,
    ])(
      'Content-Type %j on a body-carrying request: 415 unsupported_media_type, nothing written',
      async (contentType) => {
        const structure = (await api.create('product_structures')).id;
        const free = (await api.create('products')).id;
        const body = JSON.stringify(await api.addBody('customers'));
        await unchanged(
          'customers',
          1,
          async () => {
            for (const [method, path] of [
              ['POST', '/customers'],
              ['PATCH', '/customers/1'],
              ['PUT', '/customers/1'],
              ['PATCH', '/customers/1/relationships/language'],
              ['POST', '/customers/1/relationships/inform_on_complaint_users'],
              ['PATCH', '/customers/1/relationships/inform_on_complaint_users'],
              ['DELETE', '/customers/1/relationships/inform_on_complaint_users'],
              ['POST', `/products/${free}/product_structure`],
              ['POST', `/product_structures/${structure}/items`],
              ['PATCH', `/product_structures/${structure}/relationships/items`],
            ] as const) {
              expectShapeB(
                await api.request(method, path, { raw: body, contentType }),
                415,
                'unsupported_media_type',
                `${method} ${path} ${contentType}`,
              );
            }
          },
          ['product_structures', 'product_structure_items'],
        );
      },
    );

    it('application/vnd.api+json and a charset parameter are accepted', async () => {
      for (const contentType of ['application/vnd.api+json', 'application/json; charset=utf-8', 'Application/JSON']) {
        const body = JSON.stringify(await api.addBody('brands'));
        const res = await api.request('POST', '/brands', { raw: body, contentType });
        expectStatus(res, 201, contentType);
      }
    });

    it('a body over the limit (1 MiB by default): 413 payload_too_large, nothing written', async () => {
      const body = await api.addBody('customers', { attributes: { alt_name: 'x'.repeat(1_100_000) } });
      await unchanged('customers', undefined, async () => {
        expectShapeB(await api.post('/customers', body), 413, 'payload_too_large');
        expectShapeB(await api.patch('/customers/1', body), 413, 'payload_too_large');
      });
    });

    it('the limit is MAX_BODY_BYTES: a smaller configured limit refuses a smaller body', async () => {
      const t = testApp(api.env.database, { maxBodyBytes: 2048 });
      const before = await api.count('customers');
      const body = JSON.stringify(await api.addBody('customers', { attributes: { alt_name: 'x'.repeat(3000) } }));
      const res = await t.request('/customers', {
        method: 'POST',
        headers: { Authorization: `Bearer ${api.env.token}`, 'Content-Type': 'application/json' },
        body,
      });
      expect(res.status).toBe(413);
      expect((await res.json()).error.code).toBe('payload_too_large');
      const small = await t.request('/brands', {
        method: 'POST',
        headers: { Authorization: `Bearer ${api.env.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ data: { type: 'brands', attributes: { reference: api.unique('small') } } }),
      });
      expect(small.status).toBe(201);
      expect(await api.count('customers')).toBe(before);
    });

    it('a body without data, or data that is not a resource object: 400, nothing written', async () => {
      await unchanged('customers', 1, async () => {
        for (const body of [
          {},
          { data: null },
          { data: [] },
          { data: 'customers' },
          [],
          null,
          'x',
          { data: { type: 'customers', attributes: [] } },
        ]) {
          const res = await api.post('/customers', body);
          expect(res.status, JSON.stringify(body)).toBe(400);
          expect(res.body.error.http_code).toBe(400);
          const update = await api.patch('/customers/1', body);
          expect(update.status, JSON.stringify(body)).toBe(400);
        }
      });
    });
  });

  describe('required on ADD: 400 missing_field naming it', () => {
    it.each(REQUIRED)('%s.%s (%s)', async (type, field, kind) => {
      const body = await api.addBody(type);
      delete (body.data as any)[kind === 'attribute' ? 'attributes' : 'relationships'][field];
      await unchanged(type, undefined, async () => {
        const res = await api.post(`/${type}`, body);
        expectShapeB(res, 400, 'missing_field', `ADD ${type} without ${field}`);
        expect(res.body.error.message).toContain(field);
      });
    });

    it('with only the required fields an ADD succeeds', async () => {
      const unit = (await api.ids('units', 1))[0]!;
      const minimal: Record<string, any> = {
        customers: { attributes: { reference: api.unique('C'), name: 'Minimal' } },
        products: {
          attributes: { reference: api.unique('P') },
          relationships: { unit: { data: identifier('units', unit) } },
        },
        suppliers: { attributes: { reference: api.unique('S'), name: 'Minimal' } },
        units: { attributes: { reference: api.unique('U') } },
        brands: { attributes: { reference: api.unique('B') } },
        production_lines: { attributes: { reference: api.unique('L') } },
        function_corporate_groups: { attributes: { reference: api.unique('F') } },
        customer_types: { attributes: { reference: 900_000 + api.next() } },
        users: { attributes: { username: api.unique('user') } },
        languages: {},
        currencies: {},
        addresses: {},
        product_group_types: {},
        product_groups: {},
        supplier_types: {},
        product_structure_item_types: {},
        product_structure_item_calculation_methods: {},
        supplier_evaluation_role_users: {},
      };
      for (const [type, data] of Object.entries(minimal)) {
        const res = await api.post(`/${type}`, { data: { type, ...data } });
        expectStatus(res, 201, `minimal ADD ${type}`);
        for (const [name, value] of Object.entries(data.attributes ?? {}))
          expect(res.body.data.attributes[name]).toEqual(value);
      }
    });
  });

  describe('data.type and data.id', () => {
    it('data.type other than the collection (or missing): 409 type_mismatch on ADD and UPDATE, nothing written', async () => {
      const customer = await api.create('customers');
      await unchanged('customers', customer.id, async () => {
        for (const type of ['products', 'customer', 'Customers', undefined, 5]) {
          const body = await api.addBody('customers');
          (body.data as any).type = type;
          expectShapeB(await api.post('/customers', body), 409, 'type_mismatch', `ADD type ${type}`);
          expectShapeB(
            await api.patch(`/customers/${customer.id}`, { data: { type, attributes: { name: 'Changed' } } }),
            409,
            'type_mismatch',
            `UPDATE type ${type}`,
          );
        }
      });
    });

    it('UPDATE with data.id other than the path: 409, nothing written; the same id is accepted', async () => {
      const [a, b] = [await api.create('customers'), await api.create('customers')];
      await unchanged('customers', a.id, async () => {
        for (const method of ['PATCH', 'PUT'] as const) {
          const res = await api.request(method, `/customers/${a.id}`, {
            body: { data: { type: 'customers', id: b.id, attributes: { name: 'Changed' } } },
          });
          expect(res.status, res.text).toBe(409);
          expect(res.body.error.http_code).toBe(409);
          expect(typeof res.body.error.code).toBe('string');
        }
      });
      expect((await read('customers', b.id)).attributes.name).toBe(b.attributes.name);
      const same = await api.patch(`/customers/${a.id}`, {
        data: { type: 'customers', id: a.id, attributes: { name: 'Same id' } },
      });
      expectStatus(same, 200);
      expect(same.body.data.attributes.name).toBe('Same id');
    });
  });

  describe('unique values: 409 conflict, nothing written', () => {
    const UNIQUE = resources.flatMap((r) =>
      Object.entries(r.attributes)
        .filter(([, a]) => a.unique)
        .map(([name]) => [r.type, name] as [string, string]),
    );

    it('the contract names reference per type, gtin and username', () => {
      const names = new Set(UNIQUE.map(([t, n]) => `${t}.${n}`));
      for (const type of [
        'customers',
        'products',
        'suppliers',
        'units',
        'brands',
        'production_lines',
        'function_corporate_groups',
        'customer_types',
      ]) {
        expect(names.has(`${type}.reference`), type).toBe(true);
      }
      expect(names.has('products.gtin')).toBe(true);
      expect(names.has('users.username')).toBe(true);
    });

    it.each(UNIQUE)('%s.%s on ADD and UPDATE', async (type, name) => {
      const [first, second] = [await api.create(type), await api.create(type)];
      const taken = first.attributes[name];
      expect(taken).not.toBeNull();
      await unchanged(type, second.id, async () => {
        const res = await api.post(`/${type}`, await api.addBody(type, { attributes: { [name]: taken } }));
        expectShapeB(res, 409, 'conflict', `ADD ${type}.${name}`);
        const update = await api.patch(`/${type}/${second.id}`, { data: { type, attributes: { [name]: taken } } });
        expectShapeB(update, 409, 'conflict', `UPDATE ${type}.${name}`);
      });
    });

    it('a gtin may be null on many products', async () => {
      const a = await api.create('products', { attributes: { gtin: null } });
      const b = await api.create('products', { attributes: { gtin: null } });
      expect([a.attributes.gtin, b.attributes.gtin]).toEqual([null, null]);
    });
  });

  describe('relationship targets must exist: 404 shape A naming type and id, nothing written', () => {
    it('ADD with a missing to-one or to-many target', async () => {
      for (const [type, name, target, many] of [
        ['customers', 'language', 'languages', false],
        ['customers', 'inform_on_complaint_users', 'users', true],
        ['products', 'unit', 'units', false],
        ['products', 'preferred_supplier', 'suppliers', false],
        ['suppliers', 'types', 'supplier_types', true],
        ['customer_products', 'product', 'products', false],
        ['product_groups', 'type', 'product_group_types', false],
      ] as const) {
        const [existing] = await api.ids(target, 1);
        const data = many
          ? [identifier(target, existing!), identifier(target, MISSING_ID)]
          : identifier(target, MISSING_ID);
        const body = await api.addBody(type, { relationships: { [name]: { data } } });
        await unchanged(type, undefined, async () => {
          expectShapeA(await api.post(`/${type}`, body), target, MISSING_ID, `ADD ${type}.${name}`);
        });
      }
    });

    it('UPDATE with a missing target: the whole update is refused (attributes given with it too)', async () => {
      const customer = await api.create('customers');
      await unchanged('customers', customer.id, async () => {
        const res = await api.patch(`/customers/${customer.id}`, {
          data: {
            type: 'customers',
            attributes: { name: 'Not written' },
            relationships: {
              commercial_resolve_responsible_users: { data: [] },
              address: { data: identifier('addresses', MISSING_ID) },
            },
          },
        });
        expectShapeA(res, 'addresses', MISSING_ID);
      });
    });
  });

  describe('links that cannot be removed', () => {
    it('UPDATE with data: null for a to-one that cannot be removed: 400 invalid_relationship, nothing written', async () => {
      for (const [type, name] of [
        ['customers', 'language'],
        ['customers', 'account_manager'],
        ['products', 'unit'],
        ['products', 'preferred_supplier'],
        ['product_groups', 'type'],
        ['suppliers', 'currency'],
        ['suppliers', 'address'],
      ] as const) {
        const owner = await api.create(type);
        await unchanged(type, owner.id, async () => {
          const res = await api.patch(`/${type}/${owner.id}`, {
            data: { type, attributes: {}, relationships: { [name]: { data: null } } },
          });
          expectShapeB(res, 400, 'invalid_relationship', `${type}.${name}`);
        });
      }
    });

    it('UPDATE with data: null for a removable to-one removes it', async () => {
      const product = await api.create('products');
      for (const name of ['brand', 'product_group', 'production_line']) {
        expect(product.relationships[name].data).not.toBeNull();
        const res = await api.patch(`/products/${product.id}`, {
          data: { type: 'products', relationships: { [name]: { data: null } } },
        });
        expectStatus(res, 200, name);
        expect(res.body.data.relationships[name].data).toBeNull();
      }
    });
  });

  describe('what the server maintains', () => {
    it('modified_date and created_date in a body are ignored; modified_date moves on every write that changes something', async () => {
      const old = '2001-01-01T00:00:00+00:00';
      const created = await api.create('supplier_evaluation_role_users');
      const res = await api.patch(`/supplier_evaluation_role_users/${created.id}`, {
        data: { type: 'supplier_evaluation_role_users', attributes: { created_date: old, modified_date: old } },
      });
      expectStatus(res, 200);
      expect(res.body.data.attributes.created_date).toBe(created.attributes.created_date);
      expect(res.body.data.attributes.modified_date).not.toBe(old);
      const customer = await api.post(
        '/customers',
        await api.addBody('customers', { attributes: { modified_date: old } }),
      );
      expectStatus(customer, 201);
      expect(customer.body.data.attributes.modified_date).toMatch(ATOM);
      expect(Date.now() - Date.parse(customer.body.data.attributes.modified_date)).toBeLessThan(120_000);
      // A seeded row (modified long ago): an UPDATE that changes nothing keeps its modified_date
      // and version; one that changes something moves both.
      const before = await read('units', 1);
      const untouched = await api.ok('PATCH', '/units/1', {
        data: { type: 'units', attributes: { reference: before.attributes.reference } },
      });
      expect(untouched.data).toEqual(before);
      const touched = await api.ok('PATCH', '/units/1', {
        data: { type: 'units', attributes: { description: { de: `Stück ${api.next()}` } } },
      });
      expect(Date.parse(touched.data.attributes.modified_date)).toBeGreaterThan(
        Date.parse(before.attributes.modified_date),
      );
      expect(touched.data.meta.version).toBe(before.meta.version + 1);
    });

    it('a modified_date that is not a date is still ignored (the server sets it)', async () => {
      const res = await api.patch('/units/2', { data: { type: 'units', attributes: { modified_date: 'yesterday' } } });
      expectStatus(res, 200);
      expect(res.body.data.attributes.modified_date).toMatch(ATOM);
    });
  });

  describe('values', () => {
    it('localized text is merged key by key: keys given are set (null clears one), others kept', async () => {
      const product = await api.create('products', {
        attributes: { name: { nl: 'Brood', fr: 'Pain', en: 'Bread', de: 'Brot' } },
      });
      const res = await api.patch(`/products/${product.id}`, {
        data: { type: 'products', attributes: { name: { fr: 'Pain complet' } } },
      });
      expectStatus(res, 200);
      expect(res.body.data.attributes.name).toEqual({ nl: 'Brood', fr: 'Pain complet', en: 'Bread', de: 'Brot' });
      const cleared = await api.patch(`/products/${product.id}`, {
        data: { type: 'products', attributes: { name: { de: null } } },
      });
      expect(cleared.body.data.attributes.name).toEqual({ nl: 'Brood', fr: 'Pain complet', en: 'Bread', de: null });
      const added = await api.post(
        '/products',
        await api.addBody('products', { attributes: { legal_name: { en: 'Only English' } } }),
      );
      expectStatus(added, 201);
      expect(added.body.data.attributes.legal_name).toEqual({ nl: null, fr: null, en: 'Only English', de: null });
    });

    it('decimals round-trip exactly as JSON numbers', async () => {
      // No negative: prices and weights are not (clean data, clean-data.test.ts).
      for (const value of [0.1, 0.2, 0.3, 1.005, 1234567.891, 0.000001, 99999999.99, 12.5, 0, 3.75]) {
        const product = await api.create('products', {
          attributes: { consumer_price: value, net_weight_in_kilogram: value },
        });
        expect(product.attributes.consumer_price, String(value)).toBe(value);
        const again = await read('products', product.id);
        expect(again.attributes.consumer_price, String(value)).toBe(value);
        expect(again.attributes.net_weight_in_kilogram, String(value)).toBe(value);
        expect(JSON.stringify(again.attributes.consumer_price)).toBe(JSON.stringify(value));
      }
    });

    it('a decimal given as a string is a wrong JSON type: 400 invalid_attribute naming it, nothing written', async () => {
      const product = await api.create('products', { attributes: { consumer_price: 1.5 } });
      await unchanged('products', product.id, async () => {
        const plain = await api.patch(`/products/${product.id}`, {
          data: { type: 'products', attributes: { consumer_price: '2.49' } },
        });
        expectShapeB(plain, 400, 'invalid_attribute');
        expect(plain.body.error.message).toMatch(
          /attributes\.consumer_price must be a JSON number \(got the string "2\.49"\)/,
        );
        const nested = await api.patch(`/products/${product.id}`, {
          data: { type: 'products', attributes: { shelf_life: { value: '30', interval: 'Days' } } },
        });
        expectShapeB(nested, 400, 'invalid_attribute');
        expect(nested.body.error.message).toMatch(/attributes\.shelf_life\.value must be a JSON number/);
      });
    });

    it('text round-trips unchanged (accents, quotes, emoji)', async () => {
      const name = 'Boulangerie "Les Trois Épis" – 🍞 & Zoon\'s';
      const customer = await api.create('customers', { attributes: { name } });
      expect((await read('customers', customer.id)).attributes.name).toBe(name);
    });
  });

  describe('one transaction per write', () => {
    it('a refused ADD with to-many links writes neither the resource nor any link', async () => {
      const users = await api.ids('users', 2);
      const body = await api.addBody('suppliers', {
        relationships: {
          commercial_resolve_responsible_users: { data: users.map((u) => identifier('users', u)) },
          types: { data: [identifier('supplier_types', MISSING_ID)] },
        },
      });
      const links = () =>
        Promise.all([api.prisma.supplierCommercialResolveResponsibleUser.count(), api.prisma.supplierTypeLink.count()]);
      const before = await links();
      await unchanged('suppliers', undefined, async () => {
        expectShapeA(await api.post('/suppliers', body), 'supplier_types', MISSING_ID);
      });
      expect(await links()).toEqual(before);
      expect(await api.count('suppliers', { reference: body.data.attributes.reference })).toBe(0);
    });

    it('a duplicate reference refuses the whole ADD, links included', async () => {
      const existing = await api.create('customers');
      const before = await api.prisma.customerInformOnComplaintUser.count();
      const body = await api.addBody('customers', { attributes: { reference: existing.attributes.reference } });
      await unchanged('customers', existing.id, async () => {
        expectShapeB(await api.post('/customers', body), 409, 'conflict');
      });
      expect(await api.prisma.customerInformOnComplaintUser.count()).toBe(before);
    });

    it('an UPDATE refused on its last field changes none of the others', async () => {
      const [a, b] = [await api.create('customers'), await api.create('customers')];
      const users = await api.ids('users', 5);
      await unchanged('customers', a.id, async () => {
        const res = await api.patch(`/customers/${a.id}`, {
          data: {
            type: 'customers',
            attributes: { name: 'Not written', email: 'not@written.example', reference: b.attributes.reference },
            relationships: { inform_on_complaint_users: { data: users.map((u) => identifier('users', u)) } },
          },
        });
        expectShapeB(res, 409, 'conflict');
      });
      await unchanged('customers', a.id, async () => {
        const res = await api.patch(`/customers/${a.id}`, {
          data: {
            type: 'customers',
            attributes: { name: 'Not written' },
            relationships: {
              inform_on_complaint_users: { data: users.map((u) => identifier('users', u)) },
              language: { data: null },
            },
          },
        });
        expectShapeB(res, 400, 'invalid_relationship');
      });
      await unchanged('customers', a.id, async () => {
        const res = await api.patch(`/customers/${a.id}`, {
          data: { type: 'customers', attributes: { name: 'Not written', credit_limit_used: 'lots' } },
        });
        expectShapeB(res, 400, 'invalid_attribute');
      });
    });

    it('a refused relationship write changes no link', async () => {
      const customer = await api.create('customers');
      const before = sortIds(customer.relationships.inform_on_complaint_users.data);
      const [extra] = await api.ids('users', 5).then((u) => u.slice(4));
      for (const [method, body] of [
        ['POST', { data: [identifier('users', extra!), identifier('users', MISSING_ID)] }],
        ['PATCH', { data: [identifier('users', extra!), identifier('users', MISSING_ID)] }],
      ] as const) {
        expectShapeA(
          await api.request(method, `/customers/${customer.id}/relationships/inform_on_complaint_users`, { body }),
          'users',
          MISSING_ID,
          method,
        );
        expect(sortIds((await read('customers', customer.id)).relationships.inform_on_complaint_users.data)).toEqual(
          before,
        );
      }
    });
  });
});
