import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBody, LARGE_LIST_CHARS } from '../src/http/json-body.ts';

const text = (body: string | Buffer) => (typeof body === 'string' ? body : body.toString('utf8'));

/** A GraphQL-like answer: a connection of `count` edges, each with a nested list and text of `width` characters. */
function connection(count: number, width: number) {
  return {
    data: {
      products: {
        edges: Array.from({ length: count }, (_, i) => ({
          node: {
            id: String(i),
            name: `Produit « ${i} » – ${'x'.repeat(width)}`,
            price: i / 3,
            active: i % 2 === 0,
            note: null,
            items: [
              { quantity: 1.5, unit: { code: 'kg' } },
              { quantity: 2, unit: null },
            ],
          },
        })),
        pageInfo: { hasNextPage: true, endCursor: 'b2Zmc2V0OjQ5' },
      },
    },
  };
}

describe('JSON body of an answer', () => {
  it('writes what JSON.stringify writes, as a string while no list is large', () => {
    const small = connection(50, 100);
    expect(JSON.stringify(small).length).toBeLessThan(LARGE_LIST_CHARS);
    expect(jsonBody(small)).toBe(JSON.stringify(small));
    expect(jsonBody({ data: { product: { id: '1', name: 'x' } } })).toBe('{"data":{"product":{"id":"1","name":"x"}}}');
  });

  it('writes a large list as UTF-8 bytes equal to JSON.stringify, non-ASCII text included', () => {
    const large = connection(50, 10_000);
    const body = jsonBody(large);
    expect(Buffer.isBuffer(body)).toBe(true);
    expect((body as Buffer).equals(Buffer.from(JSON.stringify(large), 'utf8'))).toBe(true);
  });

  it('leaves out of objects what JSON.stringify leaves out, writes null for it in lists, and defers to toJSON', () => {
    const padding = 'y'.repeat(LARGE_LIST_CHARS);
    const odd = {
      skipped: undefined,
      fn: () => 1,
      sym: Symbol('s'),
      date: new Date(Date.UTC(2026, 0, 31)),
      list: [padding, undefined, () => 1, Number.NaN, -0, { toJSON: () => 'mine' }, [undefined]],
      empty: { a: [], b: {} },
    };
    const body = jsonBody(odd);
    expect(Buffer.isBuffer(body)).toBe(true);
    expect(text(body)).toBe(JSON.stringify(odd));
  });

  it('agrees with JSON.stringify on any JSON value, with lists long enough to be written in chunks', () => {
    // The first element decides (its length times the list's): a long one makes the list large.
    const long = fc
      .array(fc.jsonValue(), { minLength: 1, maxLength: 40 })
      .map((list) => ['é€😀'.repeat(LARGE_LIST_CHARS / 4), ...list]);
    const value = fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.oneof(long, fc.jsonValue())), long);
    fc.assert(
      fc.property(value, (v) => {
        const body = jsonBody(v);
        expect(text(body)).toBe(JSON.stringify(v));
        if (Array.isArray(v) && v.length > 1 && String(v[0]).length === LARGE_LIST_CHARS) {
          expect(Buffer.isBuffer(body)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
