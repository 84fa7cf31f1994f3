/**
 * GET answers' bytes with resource objects kept between requests (src/rest/document-bytes.ts):
 * always what JSON.stringify makes of the document (entity tags are taken from these bytes),
 * a resource object at a new version serialized anew, and the bound on what is kept.
 */
import { describe, expect, it } from 'vitest';
import { DocumentBytes } from '../../src/rest/document-bytes.ts';
import type { ResourceObject } from '../../src/rest/documents.ts';

const base = 'http://localhost:3000';

function product(id: number, version: number, name: string): ResourceObject {
  return {
    type: 'products',
    id,
    attributes: { reference: `P${id}`, name: { nl: name, de: `${name} ü`, fr: null, en: null }, nlc: 1.25 },
    relationships: { unit: { data: { type: 'units', id: 1 } }, brand: { data: null } },
    links: { self: `${base}/products/${id}` },
    meta: { version },
  };
}

const unit: ResourceObject = {
  type: 'units',
  id: 1,
  attributes: { reference: 'PCS' },
  relationships: {},
  links: { self: `${base}/units/1` },
  meta: { version: 3 },
};

describe('REST answers as bytes', () => {
  const documents: [string, unknown][] = [
    [
      'a page with included resources, links and meta',
      {
        data: [product(1, 1, 'Brood'), product(2, 4, 'Melk "vol"')],
        included: [unit],
        links: { self: `${base}/products?page=1`, next: `${base}/products?page=2` },
        meta: { total: 2, count: 2, pages: 1, per_page: 50 },
      },
    ],
    ['a resource with nothing included', { data: product(3, 1, 'Kaas') }],
    ['an empty page', { data: [], included: [], links: { self: `${base}/products` }, meta: { total: 0 } }],
    ['a relationship document (identifiers, not resource objects)', { links: {}, data: [{ type: 'units', id: 1 }] }],
    ['a to-one relationship that is empty', { data: null, included: undefined }],
  ];

  it.each(documents)('%s: the bytes JSON.stringify makes, the first time and from what was kept', (_, document) => {
    const answers = new DocumentBytes();
    const expected = JSON.stringify(document);
    expect(answers.of(document).toString('utf8')).toBe(expected);
    expect(answers.of(document).toString('utf8')).toBe(expected);
  });

  it('a resource object at a new version is serialized anew; its earlier version is not shown', () => {
    const answers = new DocumentBytes();
    expect(answers.of({ data: [product(1, 1, 'Brood')] }).toString()).toContain('"Brood"');
    const changed = answers.of({ data: [product(1, 2, 'Volkorenbrood')] }).toString();
    expect(changed).toBe(JSON.stringify({ data: [product(1, 2, 'Volkorenbrood')] }));
    // Another base URL (another Host, a proxy's scheme) is another resource object.
    const elsewhere = { ...product(1, 2, 'Volkorenbrood'), links: { self: 'https://api.example.com/products/1' } };
    expect(answers.of({ data: elsewhere }).toString()).toBe(JSON.stringify({ data: elsewhere }));
  });

  it('keeps at most its bound: the oldest entries go first, and answers stay right', () => {
    // An entry weighs its bytes and its key (version and self link, two bytes a character).
    const one = Buffer.byteLength(JSON.stringify(product(1, 1, 'Brood'))) + 2 * `1 ${base}/products/1`.length;
    const answers = new DocumentBytes(one * 3 + 8);
    const kept = () => (answers as unknown as { keptBytes: number }).keptBytes;
    for (let id = 1; id <= 10; id++) {
      const document = { data: [product(id, 1, 'Brood')] };
      expect(answers.of(document).toString()).toBe(JSON.stringify(document));
      expect(kept()).toBeLessThanOrEqual(one * 3 + 8);
    }
    expect(kept()).toBeGreaterThan(0);
  });
});
