/**
 * A business key (a unique attribute: `reference`, `username`, `gtin`, the ISO codes) and any
 * required text may not be blank: empty, white space, or invisible characters only. Refused on
 * ADD and UPDATE through REST and GraphQL alike, naming the attribute, and nothing is written.
 * Registry-driven: every such attribute of every type that can be added.
 */
import { describe, expect, it } from 'vitest';
import { attributeField, typeName } from '../../src/resources/names.ts';
import { resources } from '../../src/resources/registry.ts';
import { providers } from '../support/databases.ts';
import { expectShapeB, restSuite } from './support.ts';

const BLANKS = ['', '   ', '\t\n', '\u00a0\u200b\ufeff'];

/** Every client-written text attribute that is a key or required, of types that can be added. */
const KEYS = resources.flatMap((r) =>
  r.operations.includes('add') && !r.forbidden?.operations.includes('add')
    ? Object.entries(r.attributes)
        .filter(([, a]) => a.type === 'string' && a.write === 'client' && (a.unique || a.required))
        .map(([name]) => [`${r.type}.${name}`, r.type, name] as const)
    : [],
);

describe.each(providers)('blank keys on %s', (provider) => {
  const api = restSuite(provider);

  it('covers the keys the registry declares', () => {
    expect(KEYS.map(([label]) => label)).toEqual(
      expect.arrayContaining(['products.reference', 'products.gtin', 'users.username', 'customers.name']),
    );
  });

  it.each(KEYS)('%s: ADD and UPDATE refuse a blank value, naming it, and write nothing', async (_label, type, name) => {
    const existing = await api.create(type);
    const before = await api.count(type);
    for (const blank of BLANKS) {
      const add = await api.post(`/${type}`, await api.addBody(type, { attributes: { [name]: blank } }));
      expectShapeB(add, 400, 'invalid_attribute', `ADD ${JSON.stringify(blank)}`);
      expect(add.body.error.message).toContain(`${name} must not be blank`);
      const update = await api.patch(`/${type}/${existing.id}`, { data: { type, attributes: { [name]: blank } } });
      expectShapeB(update, 400, 'invalid_attribute', `UPDATE ${JSON.stringify(blank)}`);
      expect(update.body.error.message).toContain(`${name} must not be blank`);
    }
    expect(await api.count(type)).toBe(before);
    const stored = await api.ok('GET', `/${type}/${existing.id}`);
    expect(stored.data.attributes[name]).toBe(existing.attributes[name]);
  });

  it.each(KEYS)('%s: GraphQL create and update refuse it the same way', async (_label, type, name) => {
    const existing = await api.create(type);
    const resource = resources.find((r) => r.type === type)!;
    const field = attributeField(resource, name, resource.attributes[name]!.column);
    const update = await api.env.gql(
      `mutation($id: Int!, $input: Update${typeName(type)}Input!) { update${typeName(type)}(id: $id, input: $input) { id } }`,
      { id: existing.id, input: { [field]: ' ' } },
    );
    const [error] = update.body.errors ?? [];
    expect(error?.extensions?.code, JSON.stringify(update.body)).toBe('BAD_USER_INPUT');
    expect(error!.message).toContain('must not be blank');
  });
});
