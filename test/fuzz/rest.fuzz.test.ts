/**
 * Property-based fuzzing of every REST operation (every route of REST_ROUTES): its body, its path
 * id and its query parameters, on both providers. For every case: never a 5xx; a 4xx in the
 * contract's shapes whose message names the field or parameter at fault where the case broke a
 * known one; and after every refused write, the database byte for byte as it was. Then, under
 * random roles (./roles.ts): reads with filters and includes under every spelling of a field (its
 * document name, its column's, a link's `<name>_id`) answer the same before and after every value
 * the role cannot see changes; a filter on a field the role sees is taken, one on a field it does
 * not see refused; and a webhook's `where` (POST /webhooks) names what the role sees, and only that.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { dataDump, FIXTURE_ROWS, fuzzEnv, ROLES, RUNS, SEED, type FuzzEnv } from './fixture.ts';
import { type Asked, HiddenValues, randomRole } from './roles.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { type RandomRole, sees, seesAttribute } from '../support/roles.ts';
import { testWebhooks } from '../webhooks/support.ts';
import { resourceByType, resources } from '../../src/resources/registry.ts';
import type { ResourceDefinition } from '../../src/resources/types.ts';

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

// Reads under random roles --------------------------------------------------------------------

/** What a field spelling names: an attribute or a relationship of the type, or nothing. */
type Named = { attribute: string } | { relationship: string; through?: string } | undefined;

/**
 * Every spelling of every field of a type, as a query parameter or a webhook's where may give it:
 * the type's own filters (`product_group_type_id`, `filter[reference]`), an attribute's document
 * name and its column's, a relationship's name, `<name>_id` and its foreign key's column.
 */
function spellings(resource: ResourceDefinition): Map<string, Named> {
  const found = new Map<string, Named>();
  const byColumn = (column: string): Named => {
    const attribute = Object.entries(resource.attributes).find(([, a]) => a.column === column)?.[0];
    if (attribute) return { attribute };
    const relationship = Object.entries(resource.relationships).find(
      ([, r]) => r.storage.kind === 'foreignKey' && r.storage.column === column,
    )?.[0];
    return relationship ? { relationship } : undefined;
  };
  // A related reference reads the relationship and the reference of the row it leads to.
  for (const [name, filter] of Object.entries(resource.filters))
    found.set(
      name,
      'column' in filter ? byColumn(filter.column) : { relationship: filter.relationship, through: 'reference' },
    );
  for (const [name, attribute] of Object.entries(resource.attributes))
    for (const spelling of [name, attribute.column, `filter[${name}]`, `filter[${attribute.column}]`])
      if (!found.has(spelling)) found.set(spelling, { attribute: name });
  for (const [name, rel] of Object.entries(resource.relationships)) {
    if (rel.storage.kind !== 'foreignKey') continue;
    for (const spelling of [name, `${name}_id`, rel.storage.column, `filter[${name}]`])
      if (!found.has(spelling)) found.set(spelling, { relationship: name });
  }
  return found;
}

const SPELLINGS = new Map(resources.map((r) => [r.type, spellings(r)]));

/** Whether the role sees what a spelling names (a relationship: named, and to a type it reads). */
function seesNamed(role: RandomRole, type: string, named: Named): boolean {
  if (!named) return false;
  if ('attribute' in named) return seesAttribute(role, type, named.attribute);
  const target = resourceByType(type)!.relationships[named.relationship]!.target;
  return sees(role, type, named.relationship) && (!named.through || seesAttribute(role, target, named.through));
}

const FILTER_VALUES = ['1', '2', '3', '4', '5', '6', 'true', 'false', 'zebra', '2000-01-01T00:00:00Z'];

/** A read under a role: a list with filters under any spelling, a resource, a relationship, with includes. */
interface RoleRead {
  path: string;
  /** The one filter it gives, on a list: what the answer must make of it. */
  filter?: { type: string; name: string; named: Named };
}

const GET_ROUTES = REST_ROUTES.filter((r) => r.method === 'GET' && !r.refused);

/** A read under `role`: mostly of the types it reads; filters mostly on links, under any spelling. */
function roleRead(role: RandomRole): fc.Arbitrary<RoleRead> {
  const readable = GET_ROUTES.filter((r) => role.rules.has(r.type));
  const route = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...GET_ROUTES) },
    ...(readable.length > 0 ? [{ weight: 7, arbitrary: fc.constantFrom(...readable) }] : []),
  );
  return route.chain((route) => {
    const id = fc.integer({ min: 1, max: FIXTURE_ROWS + 3 }).map(String);
    const includes = [...includeValues(route).keys()];
    const include =
      includes.length > 0
        ? fc.option(fc.subarray(includes, { minLength: 1, maxLength: Math.min(2, includes.length) }), {
            nil: undefined,
          })
        : fc.constant(undefined);
    const spelled = [...SPELLINGS.get(route.type)!];
    const links = spelled.filter(([, named]) => named && 'relationship' in named);
    const spelling = fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(...spelled) },
      ...(links.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...links) }] : []),
    );
    const filters =
      route.operation === 'list'
        ? fc.array(
            fc.tuple(spelling, fc.constantFrom(...FILTER_VALUES)).map(([[name, named], v]) => ({ name, named, v })),
            { maxLength: 2 },
          )
        : fc.constant([]);
    return fc.tuple(id, include, filters).map(([n, inc, given]) => {
      const query = [
        ...given.map(({ name, v }) => `${percentEncode(name)}=${v}`),
        ...(inc ? [`include=${inc.join(',')}`] : []),
      ];
      const only = given.length === 1 && !inc ? given[0] : undefined;
      return {
        path: `${pathOf(route, n)}${query.length > 0 ? `?${query.join('&')}` : ''}`,
        filter: only && { type: route.type, name: only.name, named: only.named },
      };
    });
  });
}

/** Each list's filters, alone, with a value that fits (an id for a link, from `seed`). */
function everyFilter(seed: number): RoleRead[] {
  return GET_ROUTES.filter((r) => r.operation === 'list').flatMap((route) =>
    Object.keys(resourceByType(route.type)!.filters).map((name, i) => {
      const named = SPELLINGS.get(route.type)!.get(name);
      const value = FILTER_VALUES[Math.abs(seed + i) % FILTER_VALUES.length]!;
      return { path: `${route.path}?${percentEncode(name)}=${value}`, filter: { type: route.type, name, named } };
    }),
  );
}

/**
 * The spellings a webhook's where may try: an attribute's document name and its column's, a
 * relationship's name, `<name>_id` and its foreign key's column; the names that are not the
 * field's document name apart (where a check may miss one).
 */
function whereSpellings(resource: ResourceDefinition): { plain: [string, Named][]; other: [string, Named][] } {
  const plain: [string, Named][] = [];
  const other: [string, Named][] = [];
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    plain.push([name, { attribute: name }]);
    if (attribute.column !== name) other.push([attribute.column, { attribute: name }]);
  }
  for (const [name, rel] of Object.entries(resource.relationships)) {
    if (rel.storage.kind !== 'foreignKey') continue;
    plain.push([name, { relationship: name }]);
    for (const spelling of new Set([`${name}_id`, rel.storage.column]))
      if (!(spelling in resource.attributes)) other.push([spelling, { relationship: name }]);
  }
  return { plain, other };
}

const WHERE_SPELLINGS = new Map(resources.map((r) => [r.type, whereSpellings(r)]));

/** Every (type, spelling) a webhook's where may try, in three pools: columns named otherwise than their attribute, links' other spellings, document names. */
const WHERE_POOLS = (['column', 'link', 'plain'] as const).map((pool) =>
  resources.flatMap((r) => {
    const { plain, other } = WHERE_SPELLINGS.get(r.type)!;
    const chosen =
      pool === 'plain' ? plain : other.filter(([, named]) => (pool === 'column') === (!!named && 'attribute' in named));
    return chosen.map(([spelling, named]) => [r.type, spelling, named] as const);
  }),
);

/** A webhook's where on one field under one spelling, with a condition that fits what it names. */
const webhookWhere = fc
  .oneof(...WHERE_POOLS.filter((p) => p.length > 0).map((pool) => fc.constantFrom(...pool)))
  .map(([type, spelling, named]) => {
    const attribute = named && 'attribute' in named ? resourceByType(type)!.attributes[named.attribute] : undefined;
    const condition =
      named && 'relationship' in named && spelling === named.relationship
        ? { id: { equals: 1 } }
        : attribute?.type === 'boolean'
          ? { equals: true }
          : attribute?.type === 'string'
            ? { equals: 'zebra' }
            : attribute?.type === 'localized'
              ? { any: { equals: 'zebra' } }
              : { equals: 1 };
    return { type, spelling, named, where: { [spelling]: condition } };
  });

const READS_PER_ROLE = 25;
const WEBHOOKS_PER_ROLE = 6;

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

  it(`${ROLES} random roles x ${READS_PER_ROLE} reads and ${WEBHOOKS_PER_ROLE} webhook filters (seed ${SEED}): no answer depends on a value the role cannot see; a field is named as far as it is seen`, {
    timeout: 60_000 + ROLES * 20_000,
  }, async () => {
    const world = new HiddenValues(env.database, () => testApp(env.database, { webhooks: testWebhooks() }));
    /** Admin's status for each webhook body: what a role that sees everything it names must get too. */
    const admin = new Map<string, number>();
    const statuses = new Map<string, number>();
    const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
    /** POST /webhooks, and the endpoint removed again when made: its status. */
    const hook = async (t: TestApp, token: string, body: string) => {
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      const res = await t.request('/webhooks', { method: 'POST', headers, body });
      const text = await res.text();
      if (res.status === 201) await t.request(`/webhooks/${JSON.parse(text).data.id}`, { method: 'DELETE', headers });
      return { status: res.status, text };
    };
    try {
      await world.spread(SEED);
      await fc.assert(
        fc.asyncProperty(
          randomRole.chain((role) =>
            fc.tuple(
              fc.constant(role),
              fc.array(roleRead(role), { minLength: READS_PER_ROLE, maxLength: READS_PER_ROLE }),
            ),
          ),
          fc.integer(),
          fc.array(webhookWhere, { minLength: WEBHOOKS_PER_ROLE, maxLength: WEBHOOKS_PER_ROLE }),
          async ([role, drawn], seed, wheres) => {
            // Besides the reads drawn: every filter a list offers, alone, on a link's id or a value.
            const reads = [...drawn, ...everyFilter(seed)];
            const ask = async (t: TestApp, token: string): Promise<Asked[]> => {
              const asked: Asked[] = [];
              for (const { path } of reads) {
                const res = await t.request(path, { headers: { Authorization: `Bearer ${token}` } });
                asked.push({ request: `GET ${path}`, answer: `${res.status} ${await res.text()}` });
              }
              return asked;
            };
            const { before, after, role: file, changed, token, t } = await world.compare(role, seed, ask);
            const context = `role ${file}\n(seed ${seed}, ${changed} rows changed where the role cannot see)`;
            for (const [i, { request, answer }] of before.entries()) {
              count(`GET ${answer.slice(0, 3)}`);
              expect(answer, `${context}\n${request}`).not.toMatch(/^5/);
              expect(
                after[i]!.answer,
                `${context}\n${request}\nbefore: ${answer.slice(0, 1500)}\nafter: ${after[i]!.answer.slice(0, 1500)}`,
              ).toBe(answer);
              // One filter alone: taken where the role sees what it names and the type offers it, else refused.
              const filter = reads[i]!.filter;
              if (!filter) continue;
              const what = `${context}\n${request} (names ${JSON.stringify(filter.named)}) -> ${answer.slice(0, 600)}`;
              const status = Number(answer.slice(0, 3));
              if (!role.rules.has(filter.type)) expect(status, what).toBe(403);
              else if (!seesNamed(role, filter.type, filter.named)) expect(status, what).toBe(400);
              else if (filter.name in resourceByType(filter.type)!.filters)
                expect(answer, `${what}: a filter on what the role sees`).not.toMatch(/^400 .*unknown query parameter/);
              count(`filter ${status}`);
            }
            for (const { type, spelling, named, where } of wheres) {
              const body = JSON.stringify({
                data: {
                  type: 'webhooks',
                  attributes: { url: 'http://127.0.0.1:9/fuzz', types: [type], where: { [type]: where } },
                },
              });
              if (!admin.has(body)) admin.set(body, (await hook(t, env.token, body)).status);
              const { status, text } = await hook(t, token, body);
              const what = `${context}\nPOST /webhooks ${body} (${spelling} names ${JSON.stringify(named)}; admin: ${admin.get(body)}) -> ${status} ${text.slice(0, 600)}`;
              expect(status, what).toBeLessThan(500);
              const seen = role.rules.has(type) && seesNamed(role, type, named);
              expect(status === 201, what).toBe(admin.get(body) === 201 && seen);
              count(`webhook ${status}`);
            }
          },
        ),
        { numRuns: ROLES, seed: SEED, endOnFailure: true },
      );
      console.log(
        `[fuzz] REST roles on ${provider}: ${world.roles} roles, ${world.requests} reads sent twice, ${world.rowsChanged} rows changed, seed ${SEED}: ${[
          ...statuses,
        ]
          .sort()
          .map(([k, n]) => `${k} x${n}`)
          .join(', ')}`,
      );
    } finally {
      await world.close();
    }
  });
});
