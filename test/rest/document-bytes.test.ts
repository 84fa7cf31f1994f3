/**
 * GET answers' bytes with resource objects kept between requests (src/rest/document-bytes.ts):
 * always what JSON.stringify makes of the document, a resource object at a new version built and
 * serialized anew, a fingerprint (from which entity tags are taken) that differs whenever the
 * bytes do, and the bound on what is kept.
 */
import { describe, expect, it } from 'vitest';
import { DocumentBytes, documentJson, type ResourceJson } from '../../src/rest/document-bytes.ts';
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

/** The document with its resource objects (in `data` and `included`) as `answers` gives them. */
function asJson(answers: DocumentBytes, document: Record<string, unknown>): Record<string, unknown> {
  const json = (value: unknown): unknown => {
    const isResource = (v: unknown): v is ResourceObject =>
      typeof v === 'object' && v !== null && 'meta' in v && 'links' in v;
    const one = (r: ResourceObject) => answers.resource(r.meta.version, r.links.self, () => r);
    if (Array.isArray(value) && value.every(isResource)) return value.map(one);
    return isResource(value) ? one(value as ResourceObject) : value;
  };
  return { ...document, data: json(document.data), included: json(document.included) };
}

function bytes(answers: DocumentBytes, document: Record<string, unknown>): string {
  return Buffer.concat(documentJson(asJson(answers, document)).parts).toString('utf8');
}

describe('REST answers as bytes', () => {
  const documents: [string, Record<string, unknown>][] = [
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
    expect(bytes(answers, document)).toBe(expected);
    expect(bytes(answers, document)).toBe(expected);
  });

  it('builds a resource object only when it is not kept at its version', () => {
    const answers = new DocumentBytes();
    let built = 0;
    const make = (version: number) => () => {
      built++;
      return product(1, version, 'Brood');
    };
    answers.resource(1, `${base}/products/1`, make(1));
    answers.resource(1, `${base}/products/1`, make(1));
    expect(built).toBe(1);
    answers.resource(2, `${base}/products/1`, make(2));
    expect(built).toBe(2);
  });

  it('a resource object at a new version is serialized anew, and the fingerprint moves with it', () => {
    const answers = new DocumentBytes();
    const first = { data: [product(1, 1, 'Brood')], meta: { total: 1 } };
    const changed = { data: [product(1, 2, 'Volkorenbrood')], meta: { total: 1 } };
    expect(bytes(answers, first)).toContain('"Brood"');
    expect(bytes(answers, changed)).toBe(JSON.stringify(changed));
    const fingerprint = (document: Record<string, unknown>) => documentJson(asJson(answers, document)).fingerprint;
    expect(fingerprint(changed)).not.toBe(fingerprint(first));
    expect(fingerprint(first)).toBe(fingerprint({ data: [product(1, 1, 'Brood')], meta: { total: 1 } }));
    // Text outside the resource objects is part of it.
    expect(fingerprint({ ...first, meta: { total: 2 } })).not.toBe(fingerprint(first));
    // Another base URL (another Host, a proxy's scheme) is another resource object.
    const elsewhere = { ...product(1, 2, 'Volkorenbrood'), links: { self: 'https://api.example.com/products/1' } };
    expect(bytes(answers, { data: elsewhere })).toBe(JSON.stringify({ data: elsewhere }));
    expect(fingerprint({ data: [elsewhere], meta: { total: 1 } })).not.toBe(fingerprint(changed));
  });

  it('a resource object as JSON serialized plainly is the object it holds', () => {
    const answers = new DocumentBytes();
    const json: ResourceJson = answers.resource(1, `${base}/products/1`, () => product(1, 1, 'Brood'));
    expect(JSON.stringify({ data: json })).toBe(JSON.stringify({ data: product(1, 1, 'Brood') }));
  });

  it('keeps at most its bound: the oldest entries go first, and answers stay right', () => {
    // An entry weighs its bytes and its key (version and self link, two bytes a character).
    const one = Buffer.byteLength(JSON.stringify(product(1, 1, 'Brood'))) + 2 * `1 ${base}/products/1`.length;
    const answers = new DocumentBytes(one * 3 + 8);
    for (let id = 1; id <= 10; id++) {
      const document = { data: [product(id, 1, 'Brood')] };
      expect(bytes(answers, document)).toBe(JSON.stringify(document));
      expect(answers.keptBytes).toBeLessThanOrEqual(one * 3 + 8);
    }
    expect(answers.keptBytes).toBeGreaterThan(0);
  });
});
