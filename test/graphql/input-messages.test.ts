/**
 * Values of the wrong type or out of range inside mutation inputs (localized text, `shelfLife`,
 * relationship ids to-one and to-many, decimals, integers past 32 bits, structure items), given
 * as literals in the query and through variables, on both databases: each is BAD_USER_INPUT whose
 * message names the field by its path from the argument (`input.shelfLife.value`, and the
 * variable it came in) and says what is wrong, never a generic "Invalid input" or a message about
 * another rule; `extensions.field` names the field (its path inside `input`). Nothing is written.
 *
 * Coercion (the types of the schema) refuses most of them before anything runs (400); the rules of
 * the data (text length, ids from 1, null where a value is required) while the mutation runs
 * (200, the mutation's field null).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';

/** Where a case's value goes: the mutation, its input type, and the arguments beside `input`. */
interface Target {
  mutation: string;
  inputType: string;
  args: string;
}

const PRODUCT: Target = { mutation: 'updateProduct', inputType: 'UpdateProductInput!', args: 'id: $$product' };
const CUSTOMER: Target = { mutation: 'updateCustomer', inputType: 'UpdateCustomerInput!', args: 'id: 1' };
const GROUP: Target = { mutation: 'updateProductGroup', inputType: 'UpdateProductGroupInput!', args: 'id: 1' };
const STRUCTURE: Target = {
  mutation: 'createProductStructure',
  inputType: 'CreateProductStructureInput!',
  args: 'productId: $$product',
};

interface Case {
  /** The input, with the bad value somewhere in it. */
  input: Record<string, unknown>;
  target?: Target;
  /** The path of the bad value from the argument, as messages say it. */
  path: string;
  /** What the message says is wrong (after the path). */
  what: RegExp;
  /** Refused when the mutation runs (the data's rules), not before. */
  atRun?: boolean;
}

const INT = /must be an integer from -2147483648 to 2147483647/;
const got = (text: string) => new RegExp(`\\(got ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`);
const and = (...patterns: RegExp[]) => new RegExp(patterns.map((p) => `(?=.*${p.source})`).join(''));

const CASES: [string, Case][] = [
  // Localized text.
  ['a number as text', { input: { name: { en: 5 } }, path: 'input.name.en', what: and(/must be a string/, got('5')) }],
  [
    'a boolean as text',
    { input: { name: { nl: true } }, path: 'input.name.nl', what: and(/must be a string/, got('true')) },
  ],
  [
    'text where the languages go',
    { input: { name: 'bread' }, path: 'input.name', what: /must be an object of type LocalizedTextInput/ },
  ],
  [
    'a language the input does not have',
    {
      input: { name: { xx: 'a' } },
      path: 'input.name.xx',
      what: /is not a field of LocalizedTextInput \(its fields: de, en, fr, nl\)/,
    },
  ],
  [
    'text longer than 4000 characters',
    {
      input: { name: { en: 'x'.repeat(5000) } },
      path: 'name.en',
      what: /must be at most 4000 characters/,
      atRun: true,
    },
  ],
  // shelf_life (an object of a decimal and a string).
  [
    'a word as shelfLife.value',
    {
      input: { shelfLife: { value: 'abc' } },
      path: 'input.shelfLife.value',
      what: and(/must be a number/, got('"abc"')),
    },
  ],
  [
    'a boolean as shelfLife.value',
    { input: { shelfLife: { value: true } }, path: 'input.shelfLife.value', what: /must be a number/ },
  ],
  [
    'shelfLife.value out of range',
    {
      input: { shelfLife: { value: 1e40 } },
      path: 'input.shelfLife.value',
      what: /is out of range \(at most 35 digits before and 30 after the point; got 1e\+?40\)/,
    },
  ],
  [
    'shelfLife.value with 16 significant digits as text (exact: a number would be read at 15)',
    {
      input: { shelfLife: { value: '1234567890.123456' } },
      path: 'input.shelfLife.value',
      what: /may have at most 15 significant digits/,
    },
  ],
  [
    'a number as shelfLife.interval',
    {
      input: { shelfLife: { interval: 5 } },
      path: 'input.shelfLife.interval',
      what: and(/must be a string/, got('5')),
    },
  ],
  [
    'a number as shelfLife',
    { input: { shelfLife: 7 }, path: 'input.shelfLife', what: /must be an object of type ShelfLifeInput/ },
  ],
  [
    'a field shelfLife does not have',
    { input: { shelfLife: { days: 7 } }, path: 'input.shelfLife.days', what: /is not a field of ShelfLifeInput/ },
  ],
  // Integers.
  [
    'informDaysBbd past 32 bits',
    {
      target: GROUP,
      input: { informDaysBbd: 2147483648 },
      path: 'input.informDaysBbd',
      what: and(INT, got('2147483648')),
    },
  ],
  [
    'informDaysBbd a fraction',
    { target: GROUP, input: { informDaysBbd: 1.5 }, path: 'input.informDaysBbd', what: and(INT, got('1.5')) },
  ],
  // To-one relationship ids.
  ['unitId past 32 bits', { input: { unitId: 2147483648 }, path: 'input.unitId', what: and(INT, got('2147483648')) }],
  ['unitId below -2^31', { input: { unitId: -2147483649 }, path: 'input.unitId', what: and(INT, got('-2147483649')) }],
  ['unitId a fraction', { input: { unitId: 1.5 }, path: 'input.unitId', what: and(INT, got('1.5')) }],
  ['unitId a string', { input: { unitId: '3' }, path: 'input.unitId', what: and(INT, got('"3"')) }],
  [
    'unitId 0',
    { input: { unitId: 0 }, path: 'input.unitId', what: /must be an id from 1 to 2147483647 \(got 0\)/, atRun: true },
  ],
  [
    'unitId -1',
    { input: { unitId: -1 }, path: 'input.unitId', what: /must be an id from 1 to 2147483647 \(got -1\)/, atRun: true },
  ],
  // Decimals and flags.
  [
    'a word as a decimal',
    { input: { consumerPrice: 'cheap' }, path: 'input.consumerPrice', what: and(/must be a number/, got('"cheap"')) },
  ],
  [
    'a decimal out of range',
    { input: { consumerPrice: '1e400' }, path: 'input.consumerPrice', what: /is out of range/ },
  ],
  [
    'a boolean as a decimal',
    { input: { consumerPrice: false }, path: 'input.consumerPrice', what: /must be a number/ },
  ],
  [
    'a word as a flag',
    { input: { isActive: 'yes' }, path: 'input.isActive', what: and(/must be true or false/, got('"yes"')) },
  ],
  [
    'a number as a flag',
    { input: { isActive: 1 }, path: 'input.isActive', what: and(/must be true or false/, got('1')) },
  ],
  // To-many relationship ids.
  [
    'a to-many id past 32 bits',
    {
      target: CUSTOMER,
      input: { informOnComplaintUsers: { set: [2147483648] } },
      path: 'input.informOnComplaintUsers.set[0]',
      what: and(INT, got('2147483648')),
    },
  ],
  [
    'a to-many id 0',
    {
      target: CUSTOMER,
      input: { informOnComplaintUsers: { add: [1, 0] } },
      path: 'input.informOnComplaintUsers.add[1]',
      what: /must be an id from 1 to 2147483647 \(got 0\)/,
      atRun: true,
    },
  ],
  [
    'a negative to-many id',
    {
      target: CUSTOMER,
      input: { informOnComplaintUsers: { remove: [-3] } },
      path: 'input.informOnComplaintUsers.remove[0]',
      what: /must be an id from 1 to 2147483647 \(got -3\)/,
      atRun: true,
    },
  ],
  [
    'a word where the ids go',
    {
      target: CUSTOMER,
      input: { informOnComplaintUsers: { set: 'all' } },
      path: 'input.informOnComplaintUsers.set',
      what: /must be a list of Int! \(got "all"\)/,
    },
  ],
  // Structure items (a list of inputs).
  [
    "an item's productId past 32 bits",
    {
      target: STRUCTURE,
      input: { items: [{ productId: 1, netQuantity: 1 }, { productId: 2147483648 }] },
      path: 'input.items[1].productId',
      what: and(INT, got('2147483648')),
    },
  ],
  [
    "an item's productId 0",
    {
      target: STRUCTURE,
      input: { items: [{ productId: 0, netQuantity: 1 }] },
      path: 'input.items[0].productId',
      what: /must be an id from 1 to 2147483647 \(got 0\)/,
      atRun: true,
    },
  ],
  [
    "a word as an item's netQuantity",
    {
      target: STRUCTURE,
      input: { items: [{ productId: 1, netQuantity: 'lots' }] },
      path: 'input.items[0].netQuantity',
      what: and(/must be a number/, got('"lots"')),
    },
  ],
];

/** A value as a GraphQL literal. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${k}: ${literal(v)}`)
      .join(', ')} }`;
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

describe.each(providers)('bad values in mutation inputs on %s: BAD_USER_INPUT naming the field', (provider) => {
  let env: GraphQLTestEnv;
  /** A product of this test's own, without a structure: every case refused, it stays at version 1. */
  let product: number;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    const created = await env.gql(
      'mutation { createProduct(input: { reference: "INPUT-MESSAGES", unitId: 1 }) { id version } }',
    );
    product = created.body.data!.createProduct.id;
  });
  afterAll(async () => env?.database.cleanup());

  const send = async (c: Case, as: 'literal' | 'variable') => {
    const target = c.target ?? PRODUCT;
    const args = target.args.replace('$$product', String(product));
    const query =
      as === 'literal'
        ? `mutation { ${target.mutation}(${args}, input: ${literal(c.input)}) { id } }`
        : `mutation($i: ${target.inputType}) { ${target.mutation}(${args}, input: $i) { id } }`;
    return env.gql(query, as === 'variable' ? { i: c.input } : undefined);
  };

  describe.each(['literal', 'variable'] as const)('given as a %s', (as) => {
    it.each(CASES)('%s', async (_name, c) => {
      const res = await send(c, as);
      const error = res.body.errors?.[0];
      expect(error, JSON.stringify(res.body)).toBeDefined();
      expect(error!.extensions?.code, error!.message).toBe('BAD_USER_INPUT');
      // The path, from the argument (the data layer's own messages name it inside the input);
      // a value from a variable says which.
      const where = c.atRun || as === 'literal' ? c.path : `${c.path} (variable $i)`;
      expect(error!.message.startsWith(`${where} `), `"${error!.message}" does not start with "${where} "`).toBe(true);
      expect(error!.message).toMatch(c.what);
      expect(error!.message).not.toMatch(/invalid input|not found|cannot represent|Expected/i);
      expect(error!.extensions?.field).toBe(c.path.replace(/^input\./, ''));
      if (c.atRun) {
        expect(res.status).toBe(200);
        expect(Object.values(res.body.data ?? {})).toEqual([null]);
      } else {
        expect(res.status).toBe(400);
        expect(res.body.data).toBeUndefined();
      }
    });
  });

  it('other arguments: the id past 32 bits, an expectedVersion below 1', async () => {
    const id = await env.gql('mutation { updateProduct(id: 2147483648, input: {}) { id } }');
    expect(id.body.errors![0]).toMatchObject({
      message: 'id must be an integer from -2147483648 to 2147483647 (got 2147483648)',
      extensions: { code: 'BAD_USER_INPUT', field: 'id' },
    });
    const version = await env.gql(`mutation { updateProduct(id: ${product}, input: {}, expectedVersion: 0) { id } }`);
    expect(version.body.errors![0]).toMatchObject({
      message: 'expectedVersion must be a version from 1 to 2147483647 (got 0)',
      extensions: { code: 'BAD_USER_INPUT', field: 'expectedVersion' },
    });
    const variable = await env.gql(
      'mutation($v: Int) { updateProduct(id: 1, input: {}, expectedVersion: $v) { id } }',
      {
        v: -2147483649,
      },
    );
    expect(variable.body.errors![0]).toMatchObject({
      message: 'expectedVersion (variable $v) must be an integer from -2147483648 to 2147483647 (got -2147483649)',
      extensions: { code: 'BAD_USER_INPUT', field: 'expectedVersion' },
    });
  });

  it('a list of items given outside `input` names its path from its own argument', async () => {
    const res = await env.gql(
      'mutation { addProductStructureItems(structureId: 1, items: [{ productId: 0 }]) { id } }',
    );
    expect(res.body.errors![0]).toMatchObject({
      message: 'items[0].productId must be an id from 1 to 2147483647 (got 0)',
      extensions: { code: 'BAD_USER_INPUT', field: 'items[0].productId' },
    });
  });

  it('wrote nothing: the product is still at version 1, without a structure', async () => {
    const res = await env.gql(`{ product(id: ${product}) { version productStructure { id } } }`);
    expect(res.body.data!.product).toEqual({ version: 1, productStructure: null });
  });
});
