/**
 * Values of the wrong type or out of range inside nested inputs (localized text, small objects
 * such as `shelf_life`, relationship identifiers) are 400s whose message names the field, by its
 * path in the body, and what it must be: never a generic "Invalid input", nor words about the
 * attribute's own type where a field inside it is at fault. Nothing is written.
 */
import { describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { expectShapeB, restSuite } from './support.ts';

type Case = [what: string, attributes: Record<string, unknown>, message: string];

const PRODUCT_CASES: Case[] = [
  ['a number in localized text', { name: { en: 5 } }, 'name.en must be a string (got 5)'],
  ['text for localized text', { name: 'Bread' }, 'name must be an object with keys nl, fr, en, de (got "Bread")'],
  ['an unknown language', { name: { es: 'Pan' } }, 'name has no "es": its keys are nl, fr, en, de'],
  [
    'too long a text',
    { name: { fr: 'x'.repeat(4001) } },
    'name.fr must be at most 4000 characters (got a string of 4001 characters)',
  ],
  ['true for a decimal in an object', { shelf_life: { value: true } }, 'shelf_life.value must be a number (got true)'],
  [
    'an object for a decimal in an object',
    { shelf_life: { value: {} } },
    'shelf_life.value must be a number (got an object)',
  ],
  ['a number for text in an object', { shelf_life: { interval: 5 } }, 'shelf_life.interval must be a string (got 5)'],
  ['a number for an object', { shelf_life: 7 }, 'shelf_life must be an object (got 7)'],
  [
    'an unknown field of an object',
    { shelf_life: { days: 7 } },
    'shelf_life has no "days": its keys are value, interval',
  ],
  ['a decimal past what is stored', { shelf_life: { value: 1e300 } }, 'shelf_life.value is out of range'],
  ['a list for a decimal', { consumer_price: [1] }, 'consumer_price must be a number (got a list of 1 item)'],
];

describe.each(providers)('messages of bad nested input on %s', (provider) => {
  const api = restSuite(provider);

  it.each(PRODUCT_CASES)('%s: 400 invalid_attribute, naming it', async (_what, attributes, message) => {
    const product = await api.create('products');
    const res = await api.patch(`/products/${product.id}`, { data: { type: 'products', attributes } });
    expectShapeB(res, 400, 'invalid_attribute');
    expect(res.body.error.message).toContain(message);
    expect((await api.get(`/products/${product.id}`)).body.data.meta.version).toBe(1);
  });

  it('an object nested thousands deep is said without being written out', async () => {
    const product = await api.create('products');
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const res = await api.request('PATCH', `/products/${product.id}`, {
      raw: `{"data":{"type":"products","attributes":{"name":${deep}}}}`,
    });
    expectShapeB(res, 400, 'invalid_attribute');
    expect(res.body.error.message).toBe('name has no "a": its keys are nl, fr, en, de');
  });

  it('an integer attribute out of range says the range and what it got', async () => {
    const group = await api.create('product_groups');
    const res = await api.patch(`/product_groups/${group.id}`, {
      data: { type: 'product_groups', attributes: { inform_days_bbd: 1.5 } },
    });
    expectShapeB(res, 400, 'invalid_attribute');
    expect(res.body.error.message).toBe('inform_days_bbd must be an integer (got 1.5)');
    const big = await api.patch(`/product_groups/${group.id}`, {
      data: { type: 'product_groups', attributes: { inform_days_bbd: 2 ** 31 } },
    });
    expect(big.body.error.message).toBe(
      'inform_days_bbd must be an integer from -2147483648 to 2147483647 (got 2147483648)',
    );
  });

  it.each([
    [
      { type: 'units', id: true },
      'data.relationships.unit.data.id must be a whole number from 1 to 2147483647 (got true)',
    ],
    [{ type: 'units', id: 0 }, 'data.relationships.unit.data.id must be a whole number from 1 to 2147483647 (got 0)'],
    ['units', 'data.relationships.unit.data must be a resource identifier'],
  ])('a relationship identifier %j: 400 invalid_relationship naming its path', async (data, message) => {
    const product = await api.create('products');
    const res = await api.patch(`/products/${product.id}`, {
      data: { type: 'products', relationships: { unit: { data } } },
    });
    expectShapeB(res, 400, 'invalid_relationship');
    expect(res.body.error.message).toContain(message);
  });
});
