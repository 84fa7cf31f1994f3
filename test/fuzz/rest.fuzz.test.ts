/**
 * Property-based fuzzing of every REST operation (every route of REST_ROUTES): its body, its path
 * id and its query parameters, on both providers. For every case: never a 5xx; a 4xx in the
 * contract's shapes whose message names the field or parameter at fault where the case broke a
 * known one; and after every refused write, the database byte for byte as it was.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceByType } from '../../src/resources/registry.ts';
import { includeValues } from '../../src/rest/query.ts';
import { REST_ROUTES, type RestRoute } from '../../src/rest/routes.ts';
import { providers } from '../support/databases.ts';
import {
  anyJson,
  deepNesting,
  integerBoundary,
  integerBoundaryText,
  oddHeaders,
  oddNumber,
  oddString,
  rawJson,
  withDuplicateKey,
} from './arbitraries.ts';
import { dataDump, FIXTURE_ROWS, fuzzEnv, RUNS, SEED, type FuzzEnv } from './fixture.ts';

interface RestCase {
  route: RestRoute;
  /** The path as sent (its id filled in). */
  path: string;
  query: [string, string][];
  body?: string;
  contentType?: string;
  /** Request headers besides Authorization and Content-Type. */
  headers: Record<string, string>;
  /** A name the answer must be a 4xx about (the one thing the case broke on purpose). */
  names?: string;
}

/** Query parameters and body members an operation knows (a name outside them is unknown). */
const KNOWN_PARAMETERS = new Set(['include', 'page', 'per_page']);

// Path ids ------------------------------------------------------------------------------------

const existingId = fc.integer({ min: 1, max: FIXTURE_ROWS }).map(String);
const junkId = fc.oneof(
  fc.constantFrom(
    '0',
    '-1',
    '01',
    '1.0',
    '1e3',
    '0x10',
    '2147483648',
    '99999999999999999999',
    '１',
    '%00',
    '%ff',
    '%E2%80%AE1',
    '..',
    '1;DROP TABLE products',
    ' 1',
    '1%20',
  ),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map(String),
  integerBoundaryText,
  oddString.map(percentEncode),
);
const pathOf = (route: RestRoute, id: string) => route.path.replace(':id', id);

/**
 * Percent-encoding that, unlike encodeURIComponent, also writes a lone surrogate (as the bytes
 * UTF-8 would give it, which are not valid UTF-8): what a careless client sends.
 */
function percentEncode(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0xd800 || code > 0xdfff) out += encodeURIComponent(ch);
    else
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
  }
  return out;
}

// Bodies --------------------------------------------------------------------------------------

/** A body the operation takes, before it is spoiled: links point at id 1, which exists. */
function validBody(route: RestRoute): Record<string, unknown> | undefined {
  const resource = resourceByType(route.type)!;
  const rel = route.relationship ? resource.relationships[route.relationship] : undefined;
  const item = {
    type: 'product_structure_items',
    attributes: { net_quantity: 1 },
    relationships: { product: { data: { type: 'products', id: 1 } } },
  };
  switch (route.operation) {
    case 'add':
    case 'update': {
      const [name, attribute] =
        Object.entries(resource.attributes).find(([, a]) => a.write === 'client' && a.type === 'string' && !a.unique) ??
        [];
      return { data: { type: route.type, attributes: name && attribute ? { [name]: 'fuzzed' } : {} } };
    }
    case 'rel-set':
      return { data: { type: rel!.target, id: 1 } };
    case 'rel-add':
    case 'rel-remove':
      return { data: [{ type: rel!.target, id: 1 }] };
    case 'rel-replace':
      return { data: rel!.storage.kind === 'children' ? [item] : [{ type: rel!.target, id: 1 }] };
    case 'add-structure':
      return { data: { type: 'product_structures', attributes: { quantity: 1 } } };
    case 'add-items':
      return { data: [item] };
    default:
      return undefined;
  }
}

/** An id at the edges of what the databases and JSON hold, as a number or as the string of one. */
const boundaryId = fc.oneof(integerBoundary, integerBoundaryText);

/**
 * The valid body with one resource identifier's id at an integer boundary: in the data of a
 * relationship operation, in a relationship of the resource written, or in an item's product.
 */
function withBoundaryId(route: RestRoute, valid: Record<string, unknown>): fc.Arbitrary<{ body: string }> | undefined {
  const resource = resourceByType(route.type)!;
  const data = valid.data as Record<string, unknown> | Record<string, unknown>[];
  const identifierOf = (target: string, id: unknown) => ({ type: target, id });
  if (route.operation.startsWith('rel-') && !Array.isArray(data) && data.id !== undefined)
    return boundaryId.map((id) => ({ body: rawJson({ data: { ...data, id } }) }));
  if (Array.isArray(data)) {
    const [first] = data;
    if (first?.id !== undefined) return boundaryId.map((id) => ({ body: rawJson({ data: [{ ...first, id }] }) }));
    return boundaryId.map((id) => ({
      body: rawJson({ data: [{ ...first, relationships: { product: { data: identifierOf('products', id) } } }] }),
    }));
  }
  const links = Object.entries(resource.relationships);
  if (links.length === 0) return undefined;
  return fc.tuple(fc.constantFrom(...links), boundaryId).map(([[name, rel], id]) => ({
    body: rawJson({
      data: {
        ...data,
        relationships: {
          [name]: {
            data: rel.cardinality === 'to-one' ? identifierOf(rel.target, id) : [identifierOf(rel.target, id)],
          },
        },
      },
    }),
  }));
}

/** A name neither the registry nor the contract knows, printable (a URL or message would escape the rest). */
const unknownName = fc.stringMatching(/^[a-z][a-z_]{0,12}$/).filter((n) => !KNOWN_PARAMETERS.has(n));

/** A body that is nearly right: the valid one with one member spoiled, or an unknown attribute added. */
function spoiledBody(route: RestRoute): fc.Arbitrary<{ body: string; names?: string }> {
  const valid = validBody(route)!;
  const resource = resourceByType(route.type)!;
  const withUnknownAttribute =
    (route.operation === 'add' || route.operation === 'update') && !route.refused
      ? [
          unknownName
            .filter((n) => !(n in resource.attributes) && !(n in resource.relationships))
            .map((name) => {
              const data = valid.data as { attributes: Record<string, unknown> };
              return {
                body: JSON.stringify({ data: { ...data, attributes: { ...data.attributes, [name]: 1 } } }),
                names: name,
              };
            }),
        ]
      : [];
  const boundary = withBoundaryId(route, valid);
  return fc.oneof(
    ...withUnknownAttribute,
    ...(boundary ? [boundary] : []),
    // One member of data replaced by anything.
    fc.tuple(fc.constantFrom('type', 'id', 'attributes', 'relationships', 'meta'), anyJson).map(([member, value]) => {
      const data = valid.data;
      return {
        body: rawJson({
          data: Array.isArray(data)
            ? [{ ...(data[0] as object), [member]: value }]
            : { ...(data as object), [member]: value },
        }),
      };
    }),
    // One attribute of the type given any value.
    fc
      .tuple(fc.constantFrom(...Object.keys(resource.attributes), 'name'), fc.oneof(anyJson, oddNumber, deepNesting))
      .map(([name, value]) => {
        const data = Array.isArray(valid.data)
          ? (valid.data[0] as Record<string, unknown>)
          : (valid.data as Record<string, unknown>);
        return { body: rawJson({ data: { ...data, attributes: { ...(data.attributes as object), [name]: value } } }) };
      }),
    // The whole of data replaced, the document given twice, or the text cut short.
    anyJson.map((value) => ({ body: rawJson({ data: value }) })),
    anyJson.map((value) => ({ body: withDuplicateKey(JSON.stringify(valid), 'data', value) })),
    fc.integer({ min: 0, max: 40 }).map((cut) => ({ body: JSON.stringify(valid).slice(0, cut) })),
  );
}

const anyBody = fc.oneof(
  anyJson.map((value) => rawJson(value)),
  deepNesting.map((value) => rawJson(value)),
  fc.constantFrom('', 'null', '{', '{"data":', '[]', '"data"', '{"data":{}}garbage', '\ufeff{"data":{}}', 'NaN'),
);

// Query strings -------------------------------------------------------------------------------

function queryFor(route: RestRoute): fc.Arbitrary<{ query: [string, string][]; names?: string }> {
  const resource = resourceByType(route.type)!;
  const known = [
    ...(includeValues(route).size > 0 ? ['include'] : []),
    ...(route.operation === 'list' ? ['page', 'per_page', ...Object.keys(resource.filters)] : []),
  ];
  const value = fc.oneof(
    oddString,
    oddNumber.map(String),
    integerBoundaryText,
    fc.constantFrom(...includeValues(route).keys(), 'include', '1', '50', '51', '0'),
  );
  const pairs = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...known, 'include'), oddString), value), { maxLength: 3 });
  const options = [
    { weight: 3, arbitrary: fc.constant({ query: [] as [string, string][] }) },
    { weight: 3, arbitrary: pairs.map((query) => ({ query })) },
    {
      weight: 1,
      arbitrary: unknownName
        .filter((n) => !known.includes(n))
        .map((name) => ({ query: [[name, '1']] as [string, string][], names: name })),
    },
  ];
  if (route.operation === 'list') {
    const malformed = ['0', '-1', 'x', '1.5', '', '1e3', ' 1', '0x1'];
    const badPage = fc.oneof(
      fc.tuple(fc.constant('page'), fc.constantFrom(...malformed, '9999999999999')),
      fc.tuple(fc.constant('per_page'), fc.constantFrom(...malformed, '51', '1000')),
    );
    options.push({
      weight: 1,
      arbitrary: badPage.map(([name, v]) => ({ query: [[name, v]] as [string, string][], names: name })),
    });
  }
  return fc.oneof(...options);
}

// Cases ---------------------------------------------------------------------------------------

/** Types whose resources an accepted write may delete (a structure's items): id 1 may be gone. */
const DELETABLE = new Set(
  REST_ROUTES.flatMap((r) => {
    const rel = r.relationship ? resourceByType(r.type)!.relationships[r.relationship] : undefined;
    return rel?.storage.kind === 'children' ? [rel.target] : [];
  }),
);

const restCase: fc.Arbitrary<RestCase> = fc.constantFrom(...REST_ROUTES).chain((route) => {
  const writes = route.method !== 'GET';
  const id = route.path.includes(':id')
    ? fc.oneof({ weight: 4, arbitrary: existingId }, { weight: 1, arbitrary: junkId })
    : fc.constant('');
  const body: fc.Arbitrary<{ body?: string; names?: string }> = writes
    ? fc.oneof(
        { weight: 3, arbitrary: spoiledBody(route) },
        { weight: 1, arbitrary: anyBody.map((b) => ({ body: b })) },
      )
    : fc.constant({});
  const contentType = fc.oneof(
    { weight: 9, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('text/plain', 'application/vnd.api+json', 'application/json; charset=latin1', ''),
    },
  );
  const headers = fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: oddHeaders });
  return fc.tuple(id, queryFor(route), body, contentType, headers).map(([id, q, b, type, headers]) => {
    // What the answer must name, where the case broke one known thing on a resource that exists
    // (id 1 exists for every type) and the operation is not refused outright. The query is read
    // first: a bad parameter is the answer whatever the body; an unknown attribute only when
    // the query is empty and the body's type taken.
    const clean =
      (!route.path.includes(':id') || (id === '1' && !DELETABLE.has(route.type))) &&
      !route.refused &&
      Object.keys(headers).length === 0;
    const names = !clean
      ? undefined
      : (q.names ?? (q.query.length === 0 && (!writes || type === 'application/json') ? b.names : undefined));
    return {
      route,
      path: pathOf(route, id),
      query: q.query,
      body: b.body,
      contentType: writes ? type : undefined,
      headers,
      names,
    };
  });
});

// Properties ----------------------------------------------------------------------------------

const SHAPE_B_CODES = [
  'invalid_json',
  'invalid_parameter',
  'unknown_field',
  'missing_field',
  'invalid_attribute',
  'invalid_relationship',
  'type_mismatch',
  'conflict',
  'bom_cycle',
  'precondition_failed',
  'cursor_expired',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  'forbidden',
  'method_not_allowed',
  'unsupported_media_type',
  'payload_too_large',
];

function describeCase(c: RestCase, status: number, text: string): string {
  const query = c.query.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`.slice(0, 100)).join('&');
  return `${c.route.method} ${c.path}?${query} headers ${JSON.stringify(c.headers)} body ${JSON.stringify(c.body?.slice(0, 300))} (${c.contentType}) -> ${status} ${text.slice(0, 300)}`;
}

/** The error's message, after checking the answer has one of the contract's error shapes. */
function errorMessage(status: number, body: any, what: string): string {
  if (status === 404) {
    expect(body?.errors?.status, what).toBe(404);
    expect(typeof body.errors.detail, what).toBe('string');
    return body.errors.detail;
  }
  expect(SHAPE_B_CODES, what).toContain(body?.error?.code);
  expect(body.error.http_code, what).toBe(status);
  expect(typeof body.error.message, what).toBe('string');
  return body.error.message;
}

/** GET /changes (not a route of the table): its three parameters with values right, wrong and odd, and unknown ones. */
const changesQuery: fc.Arbitrary<{ query: [string, string][]; names?: string }> = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.constantFrom('after', 'type', 'per_page'),
        fc.oneof(
          fc.integer({ min: 0, max: 3000 }).map(String),
          fc.constantFrom('products', 'products,units', 'product_structure_items', '500', '501', '-1', '', ','),
          integerBoundaryText,
          oddString,
        ),
      ),
      { maxLength: 3 },
    )
    .map((query) => ({ query })),
  unknownName.map((name) => ({ query: [[name, '1']] as [string, string][], names: name })),
  fc
    .constantFrom<[string, string]>(['after', 'x1'], ['per_page', '0'], ['per_page', '1000'], ['type', 'no_such_type'])
    .map(([name, value]) => ({ query: [[name, value]] as [string, string][], names: name })),
);

describe.each(providers)('REST fuzzing on %s', (provider) => {
  let env: FuzzEnv;
  let dump: string;
  beforeAll(async () => {
    env = await fuzzEnv(provider);
    dump = await dataDump(env);
  }, 120_000);
  afterAll(async () => env?.database.cleanup());

  it(`${RUNS} cases (seed ${SEED}): never a 5xx; 4xx in the contract's shapes, naming what is wrong; refused writes change nothing`, {
    timeout: 60_000 + RUNS * 100,
  }, async () => {
    let cases = 0;
    const statuses = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(restCase, async (c) => {
        cases += 1;
        const search =
          c.query.length > 0 ? `?${c.query.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&')}` : '';
        const headers: Record<string, string> = { ...c.headers, Authorization: `Bearer ${env.token}` };
        if (c.contentType) headers['Content-Type'] = c.contentType;
        const res = await env.t.request(`${c.path}${search}`, { method: c.route.method, headers, body: c.body });
        const text = await res.text();
        const what = describeCase(c, res.status, text);
        const key = `${c.route.method} ${res.status}${c.names ? ' named' : ''}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        expect(res.status, what).toBeLessThan(500);
        const writes = c.route.method !== 'GET';
        if (res.status >= 400) {
          const message = errorMessage(res.status, JSON.parse(text), what);
          expect(message.length, what).toBeGreaterThan(0);
          if (c.names) expect(message, what).toContain(c.names);
          if (writes) expect(await dataDump(env), `a refused write changed the database: ${what}`).toBe(dump);
        } else {
          expect(c.names, `${what}: answered ${res.status}, not a refusal naming ${c.names}`).toBeUndefined();
          if (writes) dump = await dataDump(env);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(cases).toBeGreaterThanOrEqual(RUNS);
    // GET /changes, outside the route table: the same rules for its parameters.
    await fc.assert(
      fc.asyncProperty(changesQuery, async (c) => {
        const search = c.query.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&');
        const res = await env.t.request(`/changes?${search}`, { headers: { Authorization: `Bearer ${env.token}` } });
        const text = await res.text();
        const what = `GET /changes?${search.slice(0, 200)} -> ${res.status} ${text.slice(0, 300)}`;
        statuses.set(`GET /changes ${res.status}`, (statuses.get(`GET /changes ${res.status}`) ?? 0) + 1);
        expect(res.status, what).toBeLessThan(500);
        if (res.status >= 400) {
          const message = errorMessage(res.status, JSON.parse(text), what);
          if (c.names) expect(message, what).toContain(c.names);
        } else expect(c.names, what).toBeUndefined();
      }),
      { numRuns: Math.ceil(RUNS / 10), seed: SEED, endOnFailure: true },
    );
    console.log(
      `[fuzz] REST on ${provider}: ${cases} cases, seed ${SEED}: ${[...statuses]
        .sort()
        .map(([k, n]) => `${k} x${n}`)
        .join(', ')}`,
    );
  });
});
