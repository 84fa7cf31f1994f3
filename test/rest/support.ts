/**
 * Helpers of the REST contract suites (rest.md, the spec's Errors table): requests over the
 * in-memory app, assertions on what a client sees (status, headers, bodies), and documents built
 * from the resource registry. Nothing here knows how the REST layer is implemented.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { resourceByType } from '../../src/resources/registry.ts';
import type { Attribute, Relationship, ResourceDefinition } from '../../src/resources/types.ts';
import type { Provider } from '../../src/db/url.ts';
import validator from 'validator';
import { withCheckDigit } from '../../src/data/formats.ts';
import { CURRENCIES, LANGUAGES } from '../../src/seed/catalog.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';

export const BASE = 'http://localhost';
export const JSON_UTF8 = 'application/json; charset=utf-8';
/** `modified_date` as the contract writes it. */
export const ATOM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
export const LOCALES = ['nl', 'fr', 'en', 'de'] as const;
/** meta.changes_cursor on LIST and GET answers: a position in the change log, in decimal. */
export const CURSOR = expect.stringMatching(/^\d+$/);
/** An id no seeded table reaches (and within a 32-bit integer). */
export const MISSING_ID = 987654321;

export interface RestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON (null for an empty body). */
  body: any;
  text: string;
}

export interface RequestOptions {
  /** A value sent as JSON. */
  body?: unknown;
  /** Sent as it is (malformed JSON, huge bodies). */
  raw?: string;
  /** Content-Type of the body; `null` sends none. Default `application/json` when there is a body. */
  contentType?: string | null;
  /** Bearer token; `null` sends no Authorization header. Default: the read+write token. */
  token?: string | null;
  /** More request headers (If-Match, If-None-Match, Idempotency-Key). */
  headers?: Record<string, string>;
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * The REST client of a suite: registers, in the enclosing `describe`, an app over a migrated and
 * seeded database on `provider`, made before the first test and dropped after the last.
 */
export function restSuite(provider: Provider): Rest {
  const api = new Rest(provider);
  beforeAll(async () => {
    api.env = await graphqlEnv(provider);
  });
  afterAll(async () => api.env?.database.cleanup());
  return api;
}

/** Requests to the REST layer, as a client sends them. */
export class Rest {
  private counter = 0;
  /** The app and its database: set before the first test of the suite (restSuite). */
  env!: GraphQLTestEnv;
  constructor(private readonly tag: string) {}

  get prisma(): any {
    return this.env.database.db.prisma;
  }

  /** A value no other row holds (per provider and file). */
  unique(prefix: string): string {
    return `${prefix}-${this.tag}-${++this.counter}`;
  }

  next(): number {
    return ++this.counter;
  }

  async request(method: Method, path: string, options: RequestOptions = {}): Promise<RestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.env.token : options.token;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    const contentType =
      options.contentType === undefined ? (body !== undefined ? 'application/json' : null) : options.contentType;
    if (contentType !== null) headers['Content-Type'] = contentType;
    const res = await this.env.t.request(path, { method, headers, body });
    const text = await res.text();
    let parsed: any = null;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('POST', path, { body, ...options });
  }
  patch(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('PATCH', path, { body, ...options });
  }
  put(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('PUT', path, { body, ...options });
  }
  delete(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('DELETE', path, { body, ...options });
  }

  /** The body of a request that must answer `status` (the body is shown when it does not). */
  async ok(method: Method, path: string, body?: unknown, status = 200): Promise<any> {
    const res = await this.request(method, path, { body });
    expectStatus(res, status, `${method} ${path}`);
    expect(res.headers.get('content-type')).toBe(JSON_UTF8);
    return res.body;
  }

  /** Rows of a type in the database (to compare with what the API says, or prove nothing changed). */
  count(type: string, where: object = {}): Promise<number> {
    return this.prisma[resourceByType(type)!.model].count({ where });
  }

  /** `limit` ids of a type, ascending, straight from the database. */
  async ids(type: string, limit: number, where: object = {}): Promise<number[]> {
    const rows = await this.prisma[resourceByType(type)!.model].findMany({
      where,
      select: { id: true },
      orderBy: { id: 'asc' },
      take: limit,
    });
    return rows.map((r: { id: number }) => r.id);
  }

  // Resources of our own -----------------------------------------------------------------------

  /** Creates a resource through ADD (the body from the registry) and returns its document. */
  async create(
    type: string,
    overrides: { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> } = {},
  ): Promise<any> {
    if (type === 'product_structures') {
      const product = await this.create('products');
      return (await this.createStructure(product.id)).data;
    }
    if (type === 'product_structure_items') {
      const product = await this.create('products');
      const { included } = await this.createStructure(product.id);
      return included[0];
    }
    const body = await this.addBody(type, overrides);
    return (await this.ok('POST', `/${type}`, body, 201)).data;
  }

  /** POST /products/{id}/product_structure with two items of raw materials (no cycle possible). */
  async createStructure(productId: number, items?: unknown[], quantity: number = 10): Promise<any> {
    const [a, b] = await this.ids('products', 2);
    const body = {
      data: {
        type: 'product_structures',
        attributes: { quantity },
        relationships: { items: { data: items ?? [await this.itemObject(a!), await this.itemObject(b!)] } },
      },
    };
    return this.ok('POST', `/products/${productId}/product_structure`, body, 201);
  }

  /** A full structure item object for `product`. */
  async itemObject(product: number, attributes: Record<string, unknown> = {}): Promise<any> {
    const [unit] = await this.ids('units', 1);
    const [type] = await this.ids('product_structure_item_types', 1);
    const [method] = await this.ids('product_structure_item_calculation_methods', 1);
    return {
      type: 'product_structure_items',
      attributes: {
        net_quantity: 2.5,
        gross_quantity: 2.55,
        loss_percentage: 2,
        is_phantom: false,
        is_processing_agent: false,
        skip_grain_component_calculation: false,
        ...attributes,
      },
      relationships: {
        product: { data: { type: 'products', id: product } },
        unit: { data: { type: 'units', id: unit } },
        type: { data: { type: 'product_structure_item_types', id: type } },
        calculation_method: { data: { type: 'product_structure_item_calculation_methods', id: method } },
      },
    };
  }

  /**
   * An ADD body of `type` from the registry: a value for every attribute the client writes, and
   * every relationship that can be given on ADD (to-one: the first target; to-many: the first two).
   */
  async addBody(
    type: string,
    overrides: { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> } = {},
  ) {
    const resource = resourceByType(type)!;
    const relationships: Record<string, unknown> = {};
    for (const [name, rel] of Object.entries(resource.relationships)) {
      if (rel.storage.kind === 'inverse' || rel.storage.kind === 'children') continue;
      const targets = await this.ids(rel.target, 2);
      relationships[name] = {
        data:
          rel.cardinality === 'to-one'
            ? { type: rel.target, id: targets[0] }
            : targets.map((id) => ({ type: rel.target, id })),
      };
    }
    return {
      data: {
        type,
        attributes: { ...this.sampleAttributes(resource, this.next()), ...overrides.attributes },
        relationships: { ...relationships, ...overrides.relationships },
      },
    };
  }

  /** A value for every client-written attribute; `n` makes unique ones unique and varies the rest. */
  sampleAttributes(resource: ResourceDefinition, n: number): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    let i = n;
    for (const [name, attribute] of Object.entries(resource.attributes)) {
      if (attribute.write !== 'client') continue;
      values[name] = sampleValue(resource.type, name, attribute, n, i++, this.tag);
    }
    return values;
  }
}

const DECIMALS = [0.1, 12.345, 1234.5678, 0.3, 7, 99.99];

/** Every two- or three-letter code `valid` takes, but those the seed stores (a code is unique). */
function codes(length: 2 | 3, valid: (code: string) => boolean, seeded: readonly string[]): string[] {
  const letters = [...'abcdefghijklmnopqrstuvwxyz'];
  let all = letters;
  for (let l = 1; l < length; l++) all = all.flatMap((prefix) => letters.map((letter) => prefix + letter));
  return all.map((code) => (length === 3 ? code.toUpperCase() : code)).filter((c) => valid(c) && !seeded.includes(c));
}

const COUNTRIES = codes(2, (c) => validator.isISO31661Alpha2(c.toUpperCase()), []).map((c) => c.toUpperCase());
const UNUSED_CODES = {
  language: codes(
    2,
    validator.isISO6391,
    LANGUAGES.map((l) => l.code),
  ),
  currency: codes(
    3,
    validator.isISO4217,
    CURRENCIES.map((c) => c.code),
  ),
};

const codesUsed = new Map<string, number>();

/**
 * A language or currency code the seed does not store and this file has not given on this
 * provider yet (a code is unique; a file adds far fewer languages or currencies than the 180 of each).
 */
export function unusedCode(format: 'language' | 'currency', tag: string): string {
  const key = `${tag} ${format}`;
  const used = codesUsed.get(key) ?? 0;
  codesUsed.set(key, used + 1);
  const code = UNUSED_CODES[format][used];
  if (!code) throw new Error(`test support: no ${format} code left for another ADD on ${tag}`);
  return code;
}

function sampleValue(type: string, name: string, attribute: Attribute, n: number, i: number, tag: string): unknown {
  const t = attribute.type;
  if (t === 'string') {
    const prefix = tag === 'sqlite' ? 871 : 872;
    switch (attribute.format) {
      case 'gtin':
        return withCheckDigit(`${prefix}${String(n).padStart(9, '0')}`);
      case 'gln':
        return withCheckDigit(`${prefix}${String(n).padStart(9, '0')}`);
      case 'email':
        return `${type}.${name}.${tag}.${n}@example.com`;
      case 'country':
        return COUNTRIES[n % COUNTRIES.length];
      case 'language':
      case 'currency':
        return unusedCode(attribute.format, tag);
      default:
        return `${type}.${name}.${tag}.${n}`;
    }
  }
  if (t === 'integer') return attribute.unique ? 100_000 + n * 7 + (tag === 'sqlite' ? 0 : 3) : (n % 30) + 1;
  if (t === 'decimal') return Math.min(DECIMALS[i % DECIMALS.length]!, attribute.maximum ?? Number.POSITIVE_INFINITY);
  if (t === 'boolean') return i % 2 === 0;
  if (t === 'localized') return { nl: `${name} nl ${n}`, fr: `${name} fr ${n}`, en: `${name} en ${n}`, de: null };
  if (t === 'datetime') return undefined;
  const object: Record<string, unknown> = {};
  for (const [field, ft] of Object.entries(t.object)) {
    object[field] =
      ft === 'decimal' ? 3 + (n % 5) : ft === 'boolean' ? n % 2 === 0 : (attribute.observedValues?.[0] ?? `v${n}`);
  }
  return object;
}

// Assertions ------------------------------------------------------------------------------------

export function expectStatus(res: RestResponse, status: number, what = ''): void {
  expect(res.status, `${what} answered ${res.status}: ${res.text.slice(0, 600)}`).toBe(status);
}

/** Shape B: `{error: {code, http_code, message}}` in the contract's media type. */
export function expectShapeB(res: RestResponse, status: number, code: string, what = ''): void {
  expectStatus(res, status, what);
  expect(res.headers.get('content-type')).toBe(JSON_UTF8);
  expect(Object.keys(res.body ?? {}), res.text).toEqual(['error']);
  expect(res.body.error.code, res.text).toBe(code);
  expect(res.body.error.http_code).toBe(status);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
}

/** Shape A 404: `{errors: {status: 404, detail}}`, the detail naming `type id` when given. */
export function expectShapeA(res: RestResponse, type?: string, id?: number | string, what = ''): void {
  expectStatus(res, 404, what);
  expect(res.headers.get('content-type')).toBe(JSON_UTF8);
  expect(Object.keys(res.body ?? {}), res.text).toEqual(['errors']);
  expect(res.body.errors.status).toBe(404);
  expect(typeof res.body.errors.detail).toBe('string');
  if (type !== undefined) expect(res.body.errors.detail).toContain(`${type} ${id}`);
}

/** A 405 in shape B with an `Allow` header that lists `allowed` and not the method refused. */
export function expectMethodNotAllowed(res: RestResponse, method: string, allowed: readonly string[], what = ''): void {
  expectShapeB(res, 405, 'method_not_allowed', what);
  const allow = res.headers.get('allow');
  expect(allow, `${what}: Allow header`).not.toBeNull();
  const methods = (allow ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  for (const m of allowed) expect(methods, `${what}: Allow ${allow}`).toContain(m);
  expect(methods, `${what}: Allow ${allow}`).not.toContain(method);
}

export const identifier = (type: string, id: number) => ({ type, id });

function expectAttributeValue(resource: ResourceDefinition, name: string, attribute: Attribute, value: unknown): void {
  const where = `${resource.type}.${name} = ${JSON.stringify(value)}`;
  const t = attribute.type;
  if (t === 'localized') {
    expect(value, where).toBeTypeOf('object');
    expect(value, where).not.toBeNull();
    expect(Object.keys(value as object).sort(), where).toEqual([...LOCALES].sort());
    for (const l of LOCALES)
      expect((value as any)[l] === null || typeof (value as any)[l] === 'string', where).toBe(true);
    return;
  }
  if (typeof t === 'object') {
    expect(value, where).toBeTypeOf('object');
    expect(value, where).not.toBeNull();
    expect(Object.keys(value as object).sort(), where).toEqual(Object.keys(t.object).sort());
    for (const [field, ft] of Object.entries(t.object)) {
      const v = (value as any)[field];
      if (v === null) continue;
      expect(typeof v, `${where} .${field}`).toBe(ft === 'decimal' ? 'number' : ft);
    }
    return;
  }
  if (t === 'datetime') {
    expect(value, where).toMatch(ATOM);
    return;
  }
  if (value === null) {
    expect(t, `${where}: a flag is never null`).not.toBe('boolean');
    return;
  }
  if (t === 'decimal') expect(typeof value, where).toBe('number');
  else if (t === 'integer') expect(Number.isInteger(value), where).toBe(true);
  else expect(typeof value, where).toBe(t);
}

/** A resource object as rest.md "Documents" fixes it, checked against the registry. */
export function expectResource(doc: any, type: string, id?: number): void {
  const resource = resourceByType(type)!;
  expect(doc, `a ${type} resource object`).toBeTypeOf('object');
  expect(Object.keys(doc).sort()).toEqual(['attributes', 'id', 'links', 'meta', 'relationships', 'type']);
  expect(doc.type).toBe(type);
  expect(Number.isInteger(doc.id), `id ${JSON.stringify(doc.id)} is an integer`).toBe(true);
  expect(Object.keys(doc.meta)).toEqual(['version']);
  expect(
    Number.isInteger(doc.meta.version) && doc.meta.version >= 1,
    `meta.version ${JSON.stringify(doc.meta.version)} is a positive integer`,
  ).toBe(true);
  if (id !== undefined) expect(doc.id).toBe(id);
  expect(doc.links).toEqual({ self: `${BASE}/${type}/${doc.id}` });
  expect(Object.keys(doc.attributes).sort()).toEqual(Object.keys(resource.attributes).sort());
  for (const [name, attribute] of Object.entries(resource.attributes))
    expectAttributeValue(resource, name, attribute, doc.attributes[name]);
  expect(Object.keys(doc.relationships).sort()).toEqual(Object.keys(resource.relationships).sort());
  for (const [name, rel] of Object.entries(resource.relationships)) {
    const member = doc.relationships[name];
    // `{data}` only, as the spec shows it: the relationship endpoints carry the URLs.
    expect(Object.keys(member), `${type}.${name}`).toEqual(['data']);
    expectRelationshipData(member.data, rel, `${type} ${doc.id} ${name}`);
  }
}

export function expectRelationshipData(data: unknown, rel: Relationship, where: string): void {
  if (rel.cardinality === 'to-many') {
    expect(Array.isArray(data), `${where}: to-many data is an array`).toBe(true);
    for (const d of data as any[]) {
      expect(Object.keys(d).sort()).toEqual(['id', 'type']);
      expect(d.type).toBe(rel.target);
      expect(Number.isInteger(d.id)).toBe(true);
    }
    const ids = (data as any[]).map((d) => d.id);
    expect(new Set(ids).size, `${where}: identifiers unique`).toBe(ids.length);
  } else if (data !== null) {
    expect(Object.keys(data as object).sort(), where).toEqual(['id', 'type']);
    expect((data as any).type).toBe(rel.target);
    expect(Number.isInteger((data as any).id)).toBe(true);
  }
}

/**
 * `included` of a document: each resource once, valid, never one of the primary data, and exactly
 * the targets of the named relationships of the primary data.
 */
export function expectIncluded(
  included: any[],
  primaryType: string,
  primary: any[],
  relationships: readonly string[],
): void {
  expect(Array.isArray(included), 'included is an array').toBe(true);
  const keys = included.map((r) => `${r.type}:${r.id}`);
  expect(new Set(keys).size, `included unique: ${keys.join(' ')}`).toBe(keys.length);
  const primaryKeys = new Set(primary.map((r) => `${primaryType}:${r.id}`));
  for (const key of keys) expect(primaryKeys.has(key), `${key} is primary data and included`).toBe(false);
  for (const r of included) expectResource(r, r.type);
  const expected = new Set<string>();
  for (const p of primary) {
    for (const name of relationships) {
      const data = p.relationships[name].data;
      for (const d of Array.isArray(data) ? data : data ? [data] : []) {
        const key = `${d.type}:${d.id}`;
        if (!primaryKeys.has(key)) expected.add(key);
      }
    }
  }
  expect(new Set(keys)).toEqual(expected);
}

/** The document without what the server may change on any write. */
export function withoutDates(doc: any): any {
  const copy = structuredClone(doc);
  delete copy.attributes.modified_date;
  return copy;
}

export const sortIds = (data: { id: number }[]) => data.map((d) => d.id).sort((a, b) => a - b);

/** The relationship member sent in a body. */
export const rel = (data: unknown) => ({ data });
