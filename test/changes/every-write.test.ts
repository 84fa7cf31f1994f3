/**
 * Every write operation of both surfaces and the change-log entries it leaves, on both
 * providers: each write route of the REST route table (src/rest/routes.ts) and each field of
 * the GraphQL Mutation type, driven from those registries so that an operation added later
 * fails here until it is given a case.
 *
 * For each operation: a real write that changes something, then the entries it left, read
 * through GET /changes after the cursor of a read taken before it (and, for mutations, through
 * GraphQL `changes` and `history` too). The resources it may touch are read with GET before and
 * after: every one whose document changed has exactly one entry, and nothing else has any. An
 * entry is checked against those reads: op; changed (the fields that differ, server-set dates
 * left out; every field on created and deleted); before and after (the values GET showed);
 * version (meta.version after the write; 1 on created; the last one on deleted); actor (the
 * client_id of the API client whose token made the request). Around each write: writes that are
 * refused (404, 412, 400, 409, GraphQL errors) and writes that change nothing (a GET document
 * sent back, a link already there, an idempotent replay) leave no entry and no change.
 */
import { getNamedType, type GraphQLField, type GraphQLInputObjectType, isInputObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import type { ChangeEntry, ChangeOp } from '../../src/data/changes.ts';
import { schema } from '../../src/graphql/schema.ts';
import { attributeField, camel, pascal, singular, typeName } from '../../src/resources/names.ts';
import { businessKey } from '../../src/data/bulk-writes.ts';
import { withCheckDigit } from '../../src/data/formats.ts';
import { resourceByType, resources } from '../../src/resources/registry.ts';
import type { ResourceDefinition } from '../../src/resources/types.ts';
import { REST_ROUTES, type RestOperation, type RestRoute } from '../../src/rest/routes.ts';
import { providers } from '../support/databases.ts';
import { getTokens } from '../support/oauth.ts';
import {
  expectShapeA,
  expectShapeB,
  expectStatus,
  identifier,
  MISSING_ID,
  type RestResponse,
  restSuite,
} from '../rest/support.ts';

type Op = ChangeOp;
type Ref = readonly [type: string, id: number];

/** An entry as `GET /changes` gives it. */
type Entry = ChangeEntry;

/** A resource as GET shows it: its version and its fields (attributes and relationship data). */
interface Doc {
  version: number;
  fields: Record<string, unknown>;
  etag: string;
}

/** A write that must leave no entry and change nothing (refused, or changing nothing). */
interface Quiet {
  what: string;
  run(): Promise<void>;
}

/** One write of an operation, with the writes around it. */
interface WriteCase {
  what: string;
  /** Resources that exist before the write and that it may change (it may change nothing else). */
  watch: Ref[];
  /** The write itself; answers the resources it created. */
  run(): Promise<Ref[]>;
  /** Entries it must leave at least ([type, op]): the write changes something. None only when the type has nothing a client can change. */
  leaves: [string, Op][];
  /** Writes made before it that must be refused and leave nothing. */
  refused: Quiet[];
  /** Writes made after it that must leave nothing (a repeat that changes nothing, a refusal). */
  after: Quiet[];
}

// The registries ---------------------------------------------------------------------------------

const READ_OPERATIONS: readonly RestOperation[] = ['list', 'get', 'rel-get', 'related-get'];
const WRITE_OPERATIONS = [
  'add',
  'update',
  'rel-set',
  'rel-add',
  'rel-replace',
  'rel-remove',
  'add-structure',
  'add-items',
] as const satisfies readonly RestOperation[];
type WriteOperation = (typeof WRITE_OPERATIONS)[number];
const isWrite = (operation: RestOperation): operation is WriteOperation =>
  (WRITE_OPERATIONS as readonly RestOperation[]).includes(operation);

const routeName = (route: RestRoute) => `${route.method} ${route.path}`;
const WRITE_ROUTES = REST_ROUTES.filter((r) => isWrite(r.operation) && !r.refused);
const REFUSED_ROUTES = REST_ROUTES.filter((r) => r.refused);
/** A client's webhook endpoints are no master data: their mutations leave no entry (a test below says so). */
const WEBHOOK_MUTATIONS = ['createWebhook', 'updateWebhook', 'rotateWebhookSecret', 'replayWebhook', 'deleteWebhook'];
/**
 * Change requests are no master data either: proposing and deciding leave no entry, applying
 * leaves those of the request's writes, each naming it (a test below says so).
 */
const CHANGE_REQUEST_MUTATIONS = [
  'createChangeRequest',
  'withdrawChangeRequest',
  'rejectChangeRequest',
  'approveChangeRequest',
];
const MUTATIONS = Object.values(schema.getMutationType()!.getFields()).filter(
  (f) => !WEBHOOK_MUTATIONS.includes(f.name) && !CHANGE_REQUEST_MUTATIONS.includes(f.name),
);

/** What a mutation does, from its name; undefined for one this file does not know (a new kind: give it a case). */
type MutationKind =
  | { kind: 'create'; type: string }
  | { kind: 'update'; type: string }
  | { kind: 'createMany' | 'updateMany' | 'upsertMany'; type: string }
  | { kind: 'createProductStructure' | 'addItems' | 'replaceItems' | 'removeItems' };

function mutationKind(name: string): MutationKind | undefined {
  const bom: Record<string, MutationKind> = {
    createProductStructure: { kind: 'createProductStructure' },
    addProductStructureItems: { kind: 'addItems' },
    replaceProductStructureItems: { kind: 'replaceItems' },
    removeProductStructureItems: { kind: 'removeItems' },
  };
  if (bom[name]) return bom[name];
  for (const resource of resources) {
    if (name === `create${typeName(resource.type)}` && resource.operations.includes('add'))
      return { kind: 'create', type: resource.type };
    if (name === `update${typeName(resource.type)}` && resource.operations.includes('update'))
      return { kind: 'update', type: resource.type };
    for (const kind of ['create', 'update', 'upsert'] as const)
      if (name === `${kind}${pascal(resource.type)}`) return { kind: `${kind}Many`, type: resource.type };
  }
  return undefined;
}

const ITEMS = 'product_structure_items';
const STRUCTURES = 'product_structures';

/**
 * The name an entry gives an attribute: its own, or, where a relationship has the same name (a
 * supplier's `currency`, free text, and its link to a currency), its column (`currency_text`).
 */
const logName = (type: string, attribute: string) => {
  const resource = resourceByType(type)!;
  return attribute in resource.relationships ? resource.attributes[attribute]!.column : attribute;
};

/** The names an entry uses for a type's fields. */
const fieldNames = (type: string) => {
  const resource = resourceByType(type)!;
  return [
    ...Object.keys(resource.attributes).map((name) => logName(type, name)),
    ...Object.keys(resource.relationships),
  ];
};
const isServerSet = (type: string, name: string) => resourceByType(type)!.attributes[name]?.write === 'server';
const sorted = (names: readonly string[]) => [...names].sort();
const key = ([type, id]: Ref) => `${type}/${id}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const pick = (fields: Record<string, unknown>, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, fields[name]]));

/** Whether a client can change anything of the type (supplier evaluation role users hold only server dates). */
function hasWritableFields(resource: ResourceDefinition): boolean {
  return (
    Object.values(resource.attributes).some((a) => a.write === 'client') ||
    Object.keys(resource.relationships).length > 0
  );
}

describe('the cases cover every write', () => {
  it('every operation of the route table is a read or a write this file knows', () => {
    const unknown = REST_ROUTES.filter((r) => !READ_OPERATIONS.includes(r.operation) && !isWrite(r.operation)).map(
      routeName,
    );
    expect(unknown, 'give these operations a case in test/changes/every-write.test.ts').toEqual([]);
    expect(WRITE_ROUTES.length).toBeGreaterThan(80);
  });

  it('every mutation of the schema is one this file knows', () => {
    const unknown = MUTATIONS.map((m) => m.name).filter((name) => !mutationKind(name));
    expect(unknown, 'give these mutations a case in test/changes/every-write.test.ts').toEqual([]);
    expect(MUTATIONS.length).toBeGreaterThan(40);
  });
});

describe.each(providers)('every write and its change-log entries on %s', (provider) => {
  const api = restSuite(provider);
  /** client_id of the API client behind the REST token, and of the one behind the GraphQL token. */
  let restActor: string;
  let graphqlActor: string;
  let graphqlToken: string;

  beforeAll(async () => {
    restActor = (await api.prisma.apiClient.findFirst({ where: { name: 'erp' } })).client_id;
    // GraphQL writes with another client: the actor is the token's client, not a process-wide one.
    const mes = await createClient(api.prisma, 'mes', ['read', 'write']);
    graphqlToken = (await getTokens(api.env.t, mes)).access_token;
    graphqlActor = (await api.prisma.apiClient.findUnique({ where: { client_id: mes.client_id } })).client_id;
    expect(graphqlActor).not.toBe(restActor);
  });

  // Reading -------------------------------------------------------------------------------------

  /** The log's position now, as a read gives it (meta.changes_cursor of a LIST page). */
  async function cursorNow(): Promise<string> {
    return (await api.ok('GET', '/units?per_page=1')).meta.changes_cursor;
  }

  /** The entries after `cursor`, through GET /changes, every page. */
  /** The log's entries after `cursor` (of `types`, comma-separated, when given). */
  async function entriesAfter(cursor: string, types?: string): Promise<Entry[]> {
    const entries: Entry[] = [];
    let after = cursor;
    for (;;) {
      const page = await api.ok('GET', `/changes?after=${after}&per_page=500${types ? `&type=${types}` : ''}`);
      for (const c of page.data) {
        const a = c.attributes;
        expect(c.type).toBe('changes');
        const { change_request: request, ...relationships } = c.relationships;
        expect(relationships).toEqual({ resource: { data: { type: a.resource_type, id: a.resource_id } } });
        entries.push({
          seq: Number(c.id),
          type: a.resource_type,
          id: a.resource_id,
          op: a.op,
          version: a.version,
          changed: a.changed,
          before: a.before,
          after: a.after,
          actor: a.actor,
          at: a.at,
          changeRequest: request ? Number(request.data.id) : null,
        });
      }
      after = page.meta.cursor;
      if (!page.meta.has_more) break;
    }
    // The table holds no more than /changes showed (of those types).
    const where = types ? { resource_type: { in: types.split(',') } } : { resource_type: { not: 'change_requests' } };
    expect(await api.prisma.change.count({ where: { seq: { gt: Number(cursor) }, ...where } })).toBe(entries.length);
    return entries;
  }

  async function read([type, id]: Ref): Promise<Doc | null> {
    const res = await api.get(`/${type}/${id}`);
    if (res.status === 404) return null;
    expectStatus(res, 200, `GET /${type}/${id}`);
    const data = res.body.data;
    const relationships = Object.entries(data.relationships).map(([name, r]: [string, any]) => [name, r.data]);
    const attributes = Object.entries(data.attributes).map(([name, value]) => [logName(type, name), value]);
    return {
      version: data.meta.version,
      fields: { ...Object.fromEntries(attributes), ...Object.fromEntries(relationships) },
      etag: res.headers.get('etag')!,
    };
  }

  async function readAll(refs: readonly Ref[]): Promise<Map<string, Doc | null>> {
    const docs = new Map<string, Doc | null>();
    for (const ref of refs) docs.set(key(ref), await read(ref));
    return docs;
  }

  const summary = (entries: readonly { type: string; id: number; op: Op }[]) =>
    entries.map((e) => `${e.type}/${e.id} ${e.op}`).sort();

  /**
   * Runs a write and checks the entries it left against GET before and after: one per resource
   * whose document changed, none for any other, each with the right content.
   */
  async function observe(write: WriteCase, actor: string): Promise<Entry[]> {
    const cursor = await cursorNow();
    const before = await readAll(write.watch);
    for (const ref of write.watch) expect(before.get(key(ref)), `${key(ref)} exists before the write`).not.toBeNull();
    const created = await write.run();
    const entries = await entriesAfter(cursor);
    const after = await readAll([...write.watch, ...created]);

    const expected: { type: string; id: number; op: Op }[] = [];
    for (const ref of write.watch) {
      const [b, a] = [before.get(key(ref))!, after.get(key(ref))];
      if (!a) expected.push({ type: ref[0], id: ref[1], op: 'deleted' });
      else if (a.version !== b.version || !same(a.fields, b.fields))
        expected.push({ type: ref[0], id: ref[1], op: 'updated' });
    }
    for (const [type, id] of created) expected.push({ type, id, op: 'created' });
    expect(summary(entries), `${write.what}: one entry per resource whose document changed, no other`).toEqual(
      summary(expected),
    );

    const now = Date.now();
    for (const entry of entries) {
      const ref: Ref = [entry.type, entry.id];
      const where = `${write.what}: the entry of ${key(ref)} (${entry.op})`;
      expect(entry.seq, where).toBeGreaterThan(Number(cursor));
      expect(entry.actor, `${where}: actor`).toBe(actor);
      expect(Math.abs(Date.parse(entry.at) - now), `${where}: at ${entry.at}`).toBeLessThan(120_000);
      const [b, a] = [before.get(key(ref)), after.get(key(ref))];
      if (entry.op === 'created') {
        expect(a, where).toBeTruthy();
        expect(entry.version, `${where}: version`).toBe(1);
        expect(a!.version, `${where}: meta.version`).toBe(1);
        expect(sorted(entry.changed), `${where}: changed`).toEqual(sorted(fieldNames(entry.type)));
        expect(entry.before, `${where}: before`).toBeNull();
        expect(entry.after, `${where}: after is the resource as GET shows it`).toEqual(a!.fields);
      } else if (entry.op === 'updated') {
        const changed = fieldNames(entry.type).filter(
          (name) => !isServerSet(entry.type, name) && !same(b!.fields[name], a!.fields[name]),
        );
        expect(sorted(entry.changed), `${where}: changed (the fields GET shows changed)`).toEqual(sorted(changed));
        expect(entry.before, `${where}: before (as GET showed them before)`).toEqual(pick(b!.fields, changed));
        expect(entry.after, `${where}: after (as GET shows them now)`).toEqual(pick(a!.fields, changed));
        expect(entry.version, `${where}: version is meta.version after the write`).toBe(a!.version);
        expect(a!.version, `${where}: one write, one version`).toBe(b!.version + 1);
      } else {
        expect(entry.version, `${where}: version (the last one)`).toBe(b!.version);
        expect(sorted(entry.changed), `${where}: changed`).toEqual(sorted(fieldNames(entry.type)));
        expect(entry.before, `${where}: before (as GET showed it)`).toEqual(b!.fields);
        expect(entry.after, `${where}: after`).toBeNull();
      }
    }
    for (const [type, op] of write.leaves)
      expect(
        entries.some((e) => e.type === type && e.op === op),
        `${write.what} leaves a ${type} ${op} entry (it must change something): ${summary(entries).join(', ')}`,
      ).toBe(true);
    return entries;
  }

  /** Runs a write that must leave no entry, and checks that the watched resources did not change. */
  async function expectQuiet(quiet: Quiet, watch: readonly Ref[]): Promise<void> {
    const cursor = await cursorNow();
    const before = await readAll(watch);
    await quiet.run();
    expect(summary(await entriesAfter(cursor)), `${quiet.what} leaves no entry`).toEqual([]);
    const after = await readAll(watch);
    for (const ref of watch)
      expect(after.get(key(ref)), `${quiet.what}: ${key(ref)} unchanged`).toEqual(before.get(key(ref)));
  }

  async function check(write: WriteCase, actor: string): Promise<Entry[]> {
    for (const refused of write.refused) await expectQuiet(refused, write.watch);
    const entries = await observe(write, actor);
    const watch = [
      ...write.watch.filter(([type, id]) => !entries.some((e) => e.type === type && e.id === id && e.op === 'deleted')),
    ];
    for (const quiet of write.after) await expectQuiet(quiet, watch);
    return entries;
  }

  // Values ----------------------------------------------------------------------------------------

  /** An id of `target` not in `notIn` (a new one when every one is). */
  async function otherTarget(target: string, notIn: readonly number[]): Promise<number> {
    const found = (await api.ids(target, notIn.length + 1, { id: { notIn: [...notIn] } }))[0];
    return found ?? Number((await api.create(target)).id);
  }

  /** For an UPDATE: every writable relationship set to another target than it has. */
  async function otherRelationships(
    resource: ResourceDefinition,
    doc: any,
  ): Promise<Record<string, { data: unknown }>> {
    const relationships: Record<string, { data: unknown }> = {};
    for (const [name, rel] of Object.entries(resource.relationships)) {
      if (rel.forbidden || !['foreignKey', 'join'].includes(rel.storage.kind)) continue;
      const current = doc.relationships[name].data;
      const held = (Array.isArray(current) ? current : current ? [current] : []).map((d: any) => d.id as number);
      const other = await otherTarget(rel.target, held);
      relationships[name] = {
        data: rel.cardinality === 'to-one' ? identifier(rel.target, other) : [identifier(rel.target, other)],
      };
    }
    return relationships;
  }

  /** Products to use as items of a new product's structure: nothing contains the new product, so no cycle. */
  async function rawMaterials(n: number): Promise<number[]> {
    return api.ids('products', n);
  }

  async function newStructure(): Promise<{ id: number; productId: number; items: number[] }> {
    const product = await api.create('products');
    const structure = await api.createStructure(Number(product.id));
    return {
      id: Number(structure.data.id),
      productId: Number(product.id),
      items: structure.included.map((i: any) => Number(i.id)),
    };
  }

  const itemsOf = async (structureId: number): Promise<number[]> =>
    ((await read([STRUCTURES, structureId]))!.fields.items as { id: number }[]).map((d) => d.id);

  /** A tag of the resource at a version it is not at: If-Match with it must be refused. */
  async function staleTag(ref: Ref): Promise<string> {
    const doc = (await read(ref))!;
    return doc.etag.replace(/^"(\d+)-/, (_m, v: string) => `"${Number(v) + 100}-`);
  }

  // REST ------------------------------------------------------------------------------------------

  const pathOf = (route: RestRoute, id: number | string) => route.path.replace(':id', String(id));

  async function send(
    route: RestRoute,
    id: number | string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<RestResponse> {
    return api.request(route.method, pathOf(route, id), { body, headers });
  }

  function expectRefused(res: RestResponse, status: number, code: string | undefined, what: string): void {
    if (status === 404) expectShapeA(res, undefined, undefined, what);
    else if (code) expectShapeB(res, status, code, what);
    else expectStatus(res, status, what);
  }

  /**
   * A POST sent with an Idempotency-Key (`first`: it must answer 201), and the same request sent
   * again (`again`): the first answer replayed, no second write.
   */
  function idempotentReplay(route: RestRoute, id: number | string, body: unknown) {
    const headers = { 'Idempotency-Key': `every-write-${api.unique('key')}` };
    let answer: RestResponse | undefined;
    return {
      first: async () => {
        answer = await send(route, id, body, headers);
        expectStatus(answer, 201, routeName(route));
        return answer;
      },
      again: {
        what: `${routeName(route)} sent again with its Idempotency-Key (replayed)`,
        run: async () => {
          const again = await send(route, id, body, headers);
          expectStatus(again, 201, 'the replay');
          expect(again.headers.get('idempotent-replayed')).toBe('true');
          expect(again.body).toEqual(answer!.body);
        },
      } satisfies Quiet,
    };
  }

  /** An UPDATE body without `data.id` (sent to another path than its own). */
  function withoutId(body: unknown): unknown {
    const data = (body as { data?: unknown }).data;
    if (typeof data !== 'object' || data === null || Array.isArray(data) || !('id' in data)) return body;
    const { id: _id, ...rest } = data as Record<string, unknown>;
    return { data: rest };
  }

  /** The refusals every write on a member route has: the owner missing, a stale If-Match, a malformed body. */
  /**
   * A change of one owner's to-many link: one entry for the owner; refused as every member write
   * is (and as `more` adds), and a repeat afterwards (`again`) that changes nothing.
   */
  function linkCase(route: RestRoute, id: number, body: unknown, again: string, more: Quiet[] = []): WriteCase {
    return {
      what: routeName(route),
      watch: [[route.type, id]],
      run: async () => {
        expectStatus(await send(route, id, body), 200, routeName(route));
        return [];
      },
      leaves: [[route.type, 'updated']],
      refused: [...memberRefusals(route, id, body), ...more],
      after: [
        {
          what: `${routeName(route)} ${again}`,
          run: async () => expectStatus(await send(route, id, body), 200, 'again'),
        },
      ],
    };
  }

  function memberRefusals(route: RestRoute, id: number, body: unknown): Quiet[] {
    return [
      {
        what: `${routeName(route)} on a missing ${route.type}: 404`,
        run: async () =>
          expectRefused(
            await send(route, MISSING_ID, route.operation === 'update' ? withoutId(body) : body),
            404,
            undefined,
            'missing owner',
          ),
      },
      {
        what: `${routeName(route)} with a stale If-Match: 412`,
        run: async () =>
          expectRefused(
            await send(route, id, body, { 'If-Match': await staleTag([route.type, id]) }),
            412,
            'precondition_failed',
            'stale If-Match',
          ),
      },
      {
        what: `${routeName(route)} with a malformed body: 400`,
        run: async () =>
          expectRefused(
            await api.request(route.method, pathOf(route, id), { raw: '{"data": {' }),
            400,
            'invalid_json',
            'malformed body',
          ),
      },
    ];
  }

  /** Ids of the resources in a relationship document's data. */
  const dataIds = (data: any): number[] =>
    (Array.isArray(data) ? data : data ? [data] : []).map((d: any) => Number(d.id));

  const restCases: Record<WriteOperation, (route: RestRoute) => Promise<WriteCase[]>> = {
    add: async (route) => {
      const { type } = route;
      const body = await api.addBody(type);
      const resource = resourceByType(type)!;
      const replay = idempotentReplay(route, '', body);
      const refused: Quiet[] = [
        {
          what: `${routeName(route)} with If-Match: 412`,
          run: async () =>
            expectRefused(
              await send(route, '', body, { 'If-Match': '"1-abc"' }),
              412,
              'precondition_failed',
              'If-Match',
            ),
        },
        {
          what: `${routeName(route)} with an attribute the type does not have: 400`,
          run: async () =>
            expectRefused(
              await send(route, '', {
                data: { ...body.data, attributes: { ...body.data.attributes, no_such_attribute: 1 } },
              }),
              400,
              'unknown_field',
              'unknown attribute',
            ),
        },
      ];
      const toOne = Object.entries(resource.relationships).find(
        ([name, rel]) => rel.cardinality === 'to-one' && name in body.data.relationships,
      );
      if (toOne)
        refused.push({
          what: `${routeName(route)} linking to a missing ${toOne[1].target}: 404`,
          run: async () =>
            expectRefused(
              await send(route, '', {
                data: {
                  ...body.data,
                  relationships: {
                    ...body.data.relationships,
                    [toOne[0]]: { data: identifier(toOne[1].target, MISSING_ID) },
                  },
                },
              }),
              404,
              undefined,
              'missing target',
            ),
        });
      return [
        {
          what: routeName(route),
          watch: [],
          run: async () => [[type, Number((await replay.first()).body.data.id)]],
          leaves: [[type, 'created']],
          refused,
          after: [replay.again],
        },
      ];
    },

    update: async (route) => {
      const { type } = route;
      const resource = resourceByType(type)!;
      const created = await api.create(type);
      const id = Number(created.id);
      const watch: Ref[] = [[type, id]];
      if (type === STRUCTURES) for (const item of await itemsOf(id)) watch.push([ITEMS, item]);
      const sendBack: Quiet = {
        what: `${routeName(route)} with the document GET answers, unchanged`,
        run: async () => {
          const doc = (await api.ok('GET', `/${type}/${id}`)).data;
          expectStatus(await send(route, id, { data: doc }), 200, 'the GET document sent back');
        },
      };
      if (!hasWritableFields(resource)) {
        // Only server-set dates: nothing a client sends changes it. The write is the no-op.
        return [
          {
            what: `${routeName(route)} (nothing a client can change)`,
            watch,
            run: async () => {
              await sendBack.run();
              return [];
            },
            leaves: [],
            refused: memberRefusals(route, id, { data: { type, attributes: {} } }),
            after: [],
          },
        ];
      }
      const attributes = api.sampleAttributes(resource, api.next());
      const relationships = await otherRelationships(resource, created);
      const body = { data: { type, id, attributes, relationships } };
      return [
        {
          what: routeName(route),
          watch,
          run: async () => {
            expectStatus(await send(route, id, body), 200, routeName(route));
            return [];
          },
          leaves: [[type, 'updated']],
          refused: memberRefusals(route, id, body),
          after: [
            sendBack,
            {
              what: `${routeName(route)} with the same body again`,
              run: async () => expectStatus(await send(route, id, body), 200, 'the same body again'),
            },
            {
              what: `${routeName(route)} with an empty body document`,
              run: async () => expectStatus(await send(route, id, { data: { type } }), 200, 'nothing given'),
            },
          ],
        },
      ];
    },

    'rel-set': async (route) => {
      const { type } = route;
      const rel = resourceByType(type)!.relationships[route.relationship!]!;
      const owner = await api.create(type);
      const id = Number(owner.id);
      const target = await otherTarget(rel.target, dataIds(owner.relationships[route.relationship!].data));
      const body = { data: identifier(rel.target, target) };
      const cases: WriteCase[] = [
        {
          what: `${routeName(route)} to another ${rel.target}`,
          watch: [[type, id]],
          run: async () => {
            expectStatus(await send(route, id, body), 200, routeName(route));
            return [];
          },
          leaves: [[type, 'updated']],
          refused: [
            ...memberRefusals(route, id, body),
            {
              what: `${routeName(route)} to a missing ${rel.target}: 404`,
              run: async () =>
                expectRefused(
                  await send(route, id, { data: identifier(rel.target, MISSING_ID) }),
                  404,
                  undefined,
                  'missing target',
                ),
            },
          ],
          after: [
            {
              what: `${routeName(route)} to the ${rel.target} it has`,
              run: async () => expectStatus(await send(route, id, body), 200, 'the same target'),
            },
          ],
        },
      ];
      if (rel.removable)
        cases.push({
          what: `${routeName(route)} to null (the link removed)`,
          watch: [[type, id]],
          run: async () => {
            expectStatus(await send(route, id, { data: null }), 200, 'null');
            return [];
          },
          leaves: [[type, 'updated']],
          refused: [],
          after: [
            {
              what: `${routeName(route)} to null again`,
              run: async () => expectStatus(await send(route, id, { data: null }), 200, 'null again'),
            },
          ],
        });
      else
        cases[0]!.refused.push({
          what: `${routeName(route)} to null, which this link cannot be: 400`,
          run: async () => expectRefused(await send(route, id, { data: null }), 400, 'invalid_relationship', 'null'),
        });
      return cases;
    },

    'rel-add': async (route) => {
      const { type } = route;
      const rel = resourceByType(type)!.relationships[route.relationship!]!;
      const owner = await api.create(type);
      const id = Number(owner.id);
      const added = Number((await api.create(rel.target)).id);
      const body = { data: [identifier(rel.target, added)] };
      return [
        linkCase(route, id, body, 'of one already linked', [
          {
            what: `${routeName(route)} of a missing ${rel.target} beside an existing one: 404`,
            run: async () =>
              expectRefused(
                await send(route, id, { data: [identifier(rel.target, added), identifier(rel.target, MISSING_ID)] }),
                404,
                undefined,
                'missing target',
              ),
          },
        ]),
      ];
    },

    'rel-replace': async (route) => {
      const { type } = route;
      const rel = resourceByType(type)!.relationships[route.relationship!]!;
      if (rel.storage.kind === 'children') {
        const structure = await newStructure();
        const [, , third] = await rawMaterials(3);
        const body = { data: [await api.itemObject(third!, { net_quantity: 0.7 })] };
        return [
          {
            what: `${routeName(route)}: the old items deleted, a new one created`,
            watch: [[type, structure.id], ...structure.items.map((i): Ref => [ITEMS, i])],
            run: async () => {
              const res = await send(route, structure.id, body);
              expectStatus(res, 200, routeName(route));
              return dataIds(res.body.data).map((i): Ref => [ITEMS, i]);
            },
            leaves: [
              [type, 'updated'],
              [ITEMS, 'deleted'],
              [ITEMS, 'created'],
            ],
            refused: [
              ...memberRefusals(route, structure.id, body),
              {
                what: `${routeName(route)} with an item of the structure's own product: 409 bom_cycle`,
                run: async () =>
                  expectRefused(
                    await send(route, structure.id, { data: [await api.itemObject(structure.productId)] }),
                    409,
                    'bom_cycle',
                    'cycle',
                  ),
              },
            ],
            after: [],
          },
        ];
      }
      const owner = await api.create(type);
      const id = Number(owner.id);
      const added = Number((await api.create(rel.target)).id);
      const body = { data: [identifier(rel.target, added)] };
      return [linkCase(route, id, body, 'with the set it has')];
    },

    'rel-remove': async (route) => {
      const { type } = route;
      const rel = resourceByType(type)!.relationships[route.relationship!]!;
      if (rel.storage.kind === 'children') {
        const structure = await newStructure();
        const body = { data: [identifier(ITEMS, structure.items[0]!)] };
        return [
          {
            what: `${routeName(route)}: the item deleted`,
            watch: [[type, structure.id], ...structure.items.map((i): Ref => [ITEMS, i])],
            run: async () => {
              expectStatus(await send(route, structure.id, body), 200, routeName(route));
              return [];
            },
            leaves: [
              [type, 'updated'],
              [ITEMS, 'deleted'],
            ],
            refused: memberRefusals(route, structure.id, body),
            after: [
              {
                what: `${routeName(route)} of an item it no longer holds`,
                run: async () => expectStatus(await send(route, structure.id, body), 200, 'again'),
              },
            ],
          },
        ];
      }
      const owner = await api.create(type);
      const id = Number(owner.id);
      const [first] = dataIds(owner.relationships[route.relationship!].data);
      expect(first, `${type} is created with ${route.relationship}`).toBeDefined();
      const body = { data: [identifier(rel.target, first!)] };
      return [linkCase(route, id, body, 'of one not linked')];
    },

    'add-structure': async (route) => {
      const product = Number((await api.create('products')).id);
      const [a, b] = await rawMaterials(2);
      const body = {
        data: {
          type: STRUCTURES,
          attributes: { quantity: 12.5 },
          relationships: {
            items: { data: [await api.itemObject(a!), await api.itemObject(b!, { loss_percentage: 0.3 })] },
          },
        },
      };
      const cycle = { data: { ...body.data, relationships: { items: { data: [await api.itemObject(product)] } } } };
      const replay = idempotentReplay(route, product, body);
      return [
        {
          what: routeName(route),
          watch: [['products', product]],
          run: async () => {
            const res = await replay.first();
            return [
              [STRUCTURES, Number(res.body.data.id)],
              ...dataIds(res.body.data.relationships.items.data).map((i): Ref => [ITEMS, i]),
            ];
          },
          leaves: [
            ['products', 'updated'],
            [STRUCTURES, 'created'],
            [ITEMS, 'created'],
          ],
          refused: [
            ...memberRefusals(route, product, body),
            {
              what: `${routeName(route)} with the product as its own item: 409 bom_cycle`,
              run: async () => expectRefused(await send(route, product, cycle), 409, 'bom_cycle', 'cycle'),
            },
          ],
          after: [
            replay.again,
            {
              what: `${routeName(route)} a second time: 409 conflict`,
              run: async () => expectRefused(await send(route, product, body), 409, 'conflict', 'second structure'),
            },
          ],
        },
      ];
    },

    'add-items': async (route) => {
      const structure = await newStructure();
      const [, , third] = await rawMaterials(3);
      const body = { data: [await api.itemObject(third!, { gross_quantity: 3.3 })] };
      const replay = idempotentReplay(route, structure.id, body);
      return [
        {
          what: routeName(route),
          watch: [[STRUCTURES, structure.id], ...structure.items.map((i): Ref => [ITEMS, i])],
          run: async () => {
            const res = await replay.first();
            return dataIds(res.body.data)
              .filter((i) => !structure.items.includes(i))
              .map((i): Ref => [ITEMS, i]);
          },
          leaves: [
            [STRUCTURES, 'updated'],
            [ITEMS, 'created'],
          ],
          refused: [
            ...memberRefusals(route, structure.id, body),
            {
              what: `${routeName(route)} with the structure's own product: 409 bom_cycle`,
              run: async () =>
                expectRefused(
                  await send(route, structure.id, { data: [await api.itemObject(structure.productId)] }),
                  409,
                  'bom_cycle',
                  'cycle',
                ),
            },
          ],
          after: [
            replay.again,
            {
              what: `${routeName(route)} with no items`,
              run: async () => expectStatus(await send(route, structure.id, { data: [] }), 201, 'no items'),
            },
          ],
        },
      ];
    },
  };

  it.each(WRITE_ROUTES.map((route) => [routeName(route), route] as const))('REST %s', async (_name, route) => {
    const cases = await restCases[route.operation as WriteOperation](route);
    for (const write of cases) await check(write, restActor);
  });

  it.each(REFUSED_ROUTES.map((route) => [routeName(route), route] as const))(
    'REST %s is always refused (403) and leaves no entry',
    async (_name, route) => {
      const [id] = await api.ids(route.type, 1);
      const target = route.relationship
        ? resourceByType(route.type)!.relationships[route.relationship]!.target
        : route.type;
      const [targetId] = await api.ids(target, 1);
      const body = route.path.includes('/relationships/')
        ? {
            data:
              resourceByType(route.type)!.relationships[route.relationship!]!.cardinality === 'to-one'
                ? identifier(target, targetId!)
                : [identifier(target, targetId!)],
          }
        : { data: { type: route.type, attributes: {} } };
      await expectQuiet(
        {
          what: routeName(route),
          run: async () => expectRefused(await send(route, id!, body), 403, 'forbidden', routeName(route)),
        },
        [[route.type, id!]],
      );
    },
  );

  // GraphQL ---------------------------------------------------------------------------------------

  /** A mutation of one field with `args` as variables, sent with the GraphQL client's token (and `headers`). */
  async function gql(
    field: GraphQLField<unknown, unknown>,
    args: Record<string, unknown>,
    selection: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: Headers; body: { data?: any; errors?: any[] } }> {
    const declared = field.args.filter((a) => a.name in args);
    const variables = declared.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
    const passed = declared.map((a) => `${a.name}: $${a.name}`).join(', ');
    const query = declared.length
      ? `mutation(${variables}) { ${field.name}(${passed}) { ${selection} } }`
      : `mutation { ${field.name} { ${selection} } }`;
    const res = await api.env.t.request('/graphql', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${graphqlToken}`,
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json',
        ...headers,
      },
      body: JSON.stringify({ query, variables: args }),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  }

  async function gqlOk(
    field: GraphQLField<unknown, unknown>,
    args: Record<string, unknown>,
    selection: string,
  ): Promise<any> {
    const res = await gql(field, args, selection);
    expect(res.body.errors, `${field.name}: ${JSON.stringify(res.body.errors)}`).toBeUndefined();
    return res.body.data![field.name];
  }

  async function gqlRefused(
    field: GraphQLField<unknown, unknown>,
    args: Record<string, unknown>,
    code: string,
  ): Promise<void> {
    // Every result type has __typename (an upsert's has no id).
    const res = await gql(field, args, '__typename');
    const error = res.body.errors?.[0];
    expect(error?.extensions?.code, `${field.name} must be refused with ${code}: ${JSON.stringify(res.body)}`).toBe(
      code,
    );
  }

  /**
   * A bulk mutation's case: two rows, all in one transaction (createXs: two created; updateXs: two
   * updated at their versions; upsertXs: one updated by its key, one created); the same call
   * again after an upsert writes nothing; a bad second row writes nothing at all.
   */
  async function bulkCases(
    field: GraphQLField<unknown, unknown>,
    kind: 'createMany' | 'updateMany' | 'upsertMany',
    type: string,
  ): Promise<WriteCase[]> {
    const what = `mutation ${field.name}`;
    const quiet = (name: string, run: () => Promise<void>): Quiet => ({ what: `${what} ${name}`, run });
    const resource = resourceByType(type)!;
    const createInput = async (inputType: GraphQLInputObjectType, attributes: Record<string, unknown> = {}) => {
      const body = await api.addBody(type, { attributes });
      return graphqlInput(
        type,
        inputType,
        body.data.attributes,
        body.data.relationships as Record<string, { data: any }>,
      );
    };
    if (kind === 'updateMany') {
      const rows = [await api.create(type), await api.create(type)];
      const rowType = inputTypeOf(field, 'updates');
      const inputType = getNamedType(rowType.getFields().input!.type) as GraphQLInputObjectType;
      const updates = await Promise.all(
        rows.map(async (row) => ({
          id: Number(row.id),
          expectedVersion: row.meta.version,
          input: graphqlInput(
            type,
            inputType,
            api.sampleAttributes(resource, api.next()),
            await otherRelationships(resource, row),
          ),
        })),
      );
      const stale = updates.map((u, i) => (i === 1 ? { ...u, expectedVersion: u.expectedVersion + 5 } : u));
      return [
        {
          what,
          watch: rows.map((row) => [type, Number(row.id)] as Ref),
          run: async () => {
            const updated = await gqlOk(field, { updates }, 'id version');
            expect(updated.map((u: { version: number }) => u.version)).toEqual(rows.map((r) => r.meta.version + 1));
            return [];
          },
          leaves: [[type, 'updated']],
          refused: [
            quiet('with a stale expectedVersion in its second row: CONFLICT', () =>
              gqlRefused(field, { updates: stale }, 'CONFLICT'),
            ),
          ],
          after: [
            quiet(
              'with the same inputs again',
              async () =>
                void (await gqlOk(field, { updates: updates.map(({ expectedVersion: _, ...u }) => u) }, 'id')),
            ),
          ],
        },
      ];
    }
    const inputType = inputTypeOf(field, 'inputs');
    const fresh = await createInput(inputType);
    const long = tooLong(type, inputType, await createInput(inputType));
    const refused = long
      ? [
          quiet('with text too long in its second row: BAD_USER_INPUT', () =>
            gqlRefused(field, { inputs: [fresh, long] }, 'BAD_USER_INPUT'),
          ),
        ]
      : [];
    if (kind === 'createMany') {
      const second = await createInput(inputType);
      return [
        {
          what,
          watch: [],
          run: async () => {
            const created = await gqlOk(field, { inputs: [fresh, second] }, 'id version');
            expect(created.map((c: { version: number }) => c.version)).toEqual([1, 1]);
            return created.map((c: { id: number }) => [type, c.id] as Ref);
          },
          leaves: [[type, 'created']],
          refused,
          after: [],
        },
      ];
    }
    const key = businessKey(resource)!;
    const existing = await api.create(type);
    const keyField = attributeField(resource, key, resource.attributes[key]!.column);
    const changed = { ...(await createInput(inputType)), [keyField]: existing.attributes[key] };
    const selection = `outcome ${camel(singular(type))} { id version }`;
    const inputs = [changed, fresh];
    // A type whose only field is its key (brands, users) has nothing for the first row to change.
    const updates = Object.keys(changed).some((f) => f !== keyField);
    return [
      {
        what,
        watch: [[type, Number(existing.id)]],
        run: async () => {
          const results = await gqlOk(field, { inputs }, selection);
          expect(results.map((r: { outcome: string }) => r.outcome)).toEqual([
            updates ? 'UPDATED' : 'UNCHANGED',
            'CREATED',
          ]);
          return [[type, results[1][camel(singular(type))].id] as Ref];
        },
        leaves: updates
          ? [
              [type, 'updated'],
              [type, 'created'],
            ]
          : [[type, 'created']],
        refused,
        after: [
          quiet('with the same inputs again: every row UNCHANGED', async () => {
            const again = await gqlOk(field, { inputs }, 'outcome');
            expect(again.map((r: { outcome: string }) => r.outcome)).toEqual(['UNCHANGED', 'UNCHANGED']);
          }),
        ],
      },
    ];
  }

  /** The input type of an argument (the element type of a list). */
  function inputTypeOf(field: GraphQLField<unknown, unknown>, arg: string): GraphQLInputObjectType {
    const type = getNamedType(field.args.find((a) => a.name === arg)!.type);
    if (!isInputObjectType(type)) throw new Error(`${field.name}(${arg}) is not an input object`);
    return type;
  }

  /** A REST document's attributes and relationships (registry names, REST forms) as a GraphQL input. */
  function graphqlInput(
    type: string,
    inputType: GraphQLInputObjectType,
    attributes: Record<string, unknown>,
    relationships: Record<string, { data: any }>,
  ): Record<string, unknown> {
    const resource = resourceByType(type)!;
    const input: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(attributes)) {
      const attribute = resource.attributes[name]!;
      const field = attributeField(resource, name, attribute.column);
      input[field] =
        typeof attribute.type === 'object' && value !== null && value !== undefined
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), v]))
          : value;
    }
    for (const [name, { data }] of Object.entries(relationships)) {
      const rel = resource.relationships[name]!;
      if (rel.cardinality === 'to-one') input[`${camel(name)}Id`] = data === null ? null : data.id;
      else input[camel(name)] = { set: data.map((d: { id: number }) => d.id) };
    }
    const fields = inputType.getFields();
    const unknown = Object.keys(input).filter((f) => !(f in fields));
    expect(unknown, `${inputType.name} has these fields`).toEqual([]);
    return input;
  }

  /** A structure item input: for `arg` of the mutation, or the `items` of its `input` (createProductStructure). */
  const itemInput = async (field: GraphQLField<unknown, unknown>, arg: string, product: number, attributes = {}) => {
    const item = await api.itemObject(product, attributes);
    let type = inputTypeOf(field, arg);
    if (arg === 'input') {
      const items = getNamedType(type.getFields().items!.type);
      if (!isInputObjectType(items)) throw new Error(`${type.name}.items is not a list of input objects`);
      type = items;
    }
    return graphqlInput(ITEMS, type, item.attributes, item.relationships);
  };

  /** A text value too long for any text attribute (4000 characters at most): BAD_USER_INPUT. */
  function tooLong(type: string, inputType: GraphQLInputObjectType, input: Record<string, unknown>) {
    const resource = resourceByType(type)!;
    const [name, attribute] =
      Object.entries(resource.attributes).find(
        ([, a]) => a.write === 'client' && (a.type === 'string' || a.type === 'localized'),
      ) ?? [];
    if (!name) return undefined;
    const field = attributeField(resource, name, attribute!.column);
    expect(inputType.getFields()[field]).toBeDefined();
    return { ...input, [field]: attribute!.type === 'localized' ? { en: 'x'.repeat(4001) } : 'x'.repeat(4001) };
  }

  const STRUCTURE_SELECTION = 'id version items { id }';

  async function mutationCases(field: GraphQLField<unknown, unknown>): Promise<WriteCase[]> {
    const kind = mutationKind(field.name)!;
    const what = `mutation ${field.name}`;
    const quiet = (name: string, run: () => Promise<void>): Quiet => ({ what: `${what} ${name}`, run });

    if (kind.kind === 'create') {
      const { type } = kind;
      const resource = resourceByType(type)!;
      const key = { 'Idempotency-Key': `every-write-${api.unique('key')}` };
      let first: unknown;
      const run = async (args: Record<string, unknown>): Promise<Ref[]> => {
        const res = await gql(field, args, 'id version', key);
        expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
        first = res.body;
        const created = res.body.data[field.name];
        expect(created.version).toBe(1);
        return [[type, created.id]];
      };
      const replay = (args: Record<string, unknown>) =>
        quiet('sent again with its Idempotency-Key (replayed)', async () => {
          const again = await gql(field, args, 'id version', key);
          expect(again.headers.get('idempotent-replayed')).toBe('true');
          expect(again.body).toEqual(first);
        });
      if (field.args.length === 0) {
        expect(hasWritableFields(resource)).toBe(false);
        return [{ what, watch: [], run: () => run({}), leaves: [[type, 'created']], refused: [], after: [replay({})] }];
      }
      const inputType = inputTypeOf(field, 'input');
      const body = await api.addBody(type);
      const input = graphqlInput(
        type,
        inputType,
        body.data.attributes,
        body.data.relationships as Record<string, { data: any }>,
      );
      const refused: Quiet[] = [];
      const long = tooLong(type, inputType, input);
      if (long)
        refused.push(
          quiet('with text too long: BAD_USER_INPUT', () => gqlRefused(field, { input: long }, 'BAD_USER_INPUT')),
        );
      const toOne = Object.entries(resource.relationships).find(
        ([name, rel]) => rel.cardinality === 'to-one' && name in body.data.relationships,
      );
      if (toOne)
        refused.push(
          quiet(`linking to a missing ${toOne[1].target}: NOT_FOUND`, () =>
            gqlRefused(field, { input: { ...input, [`${camel(toOne[0])}Id`]: MISSING_ID } }, 'NOT_FOUND'),
          ),
        );
      return [
        {
          what,
          watch: [],
          run: () => run({ input }),
          leaves: [[type, 'created']],
          refused,
          after: [replay({ input })],
        },
      ];
    }

    if (kind.kind === 'update') {
      const { type } = kind;
      const resource = resourceByType(type)!;
      const created = await api.create(type);
      const id = Number(created.id);
      const inputType = inputTypeOf(field, 'input');
      const input = graphqlInput(
        type,
        inputType,
        api.sampleAttributes(resource, api.next()),
        await otherRelationships(resource, created),
      );
      const watch: Ref[] = [[type, id]];
      if (type === STRUCTURES) for (const item of await itemsOf(id)) watch.push([ITEMS, item]);
      return [
        {
          what,
          watch,
          run: async () => {
            const updated = await gqlOk(field, { id, input, expectedVersion: created.meta.version }, 'id version');
            expect(updated.version).toBe(created.meta.version + 1);
            return [];
          },
          leaves: [[type, 'updated']],
          refused: [
            quiet('with a stale expectedVersion: CONFLICT', () =>
              gqlRefused(field, { id, input, expectedVersion: created.meta.version + 5 }, 'CONFLICT'),
            ),
            quiet(`of a missing ${type}: NOT_FOUND`, () => gqlRefused(field, { id: MISSING_ID, input }, 'NOT_FOUND')),
          ],
          after: [
            quiet('with the same input again', async () => void (await gqlOk(field, { id, input }, 'id'))),
            quiet('with an empty input', async () => void (await gqlOk(field, { id, input: {} }, 'id'))),
          ],
        },
      ];
    }

    if (kind.kind === 'createMany' || kind.kind === 'updateMany' || kind.kind === 'upsertMany')
      return bulkCases(field, kind.kind, kind.type);

    if (kind.kind === 'createProductStructure') {
      const product = Number((await api.create('products')).id);
      const [a, b] = await rawMaterials(2);
      const input = {
        quantity: 4,
        items: [await itemInput(field, 'input', a!), await itemInput(field, 'input', b!, { net_quantity: 0.25 })],
      };
      const cycle = { quantity: 4, items: [await itemInput(field, 'input', product)] };
      return [
        {
          what,
          watch: [['products', product]],
          run: async () => {
            const structure = await gqlOk(
              field,
              { productId: product, input, expectedVersion: 1 },
              STRUCTURE_SELECTION,
            );
            return [[STRUCTURES, structure.id], ...structure.items.map((i: { id: number }): Ref => [ITEMS, i.id])];
          },
          leaves: [
            ['products', 'updated'],
            [STRUCTURES, 'created'],
            [ITEMS, 'created'],
          ],
          refused: [
            quiet('with the product as its own item: BOM_CYCLE', () =>
              gqlRefused(field, { productId: product, input: cycle }, 'BOM_CYCLE'),
            ),
            quiet('with a stale expectedVersion: CONFLICT', () =>
              gqlRefused(field, { productId: product, input, expectedVersion: 9 }, 'CONFLICT'),
            ),
            quiet('for a missing product: NOT_FOUND', () =>
              gqlRefused(field, { productId: MISSING_ID, input }, 'NOT_FOUND'),
            ),
          ],
          after: [quiet('a second time: CONFLICT', () => gqlRefused(field, { productId: product, input }, 'CONFLICT'))],
        },
      ];
    }

    const structure = await newStructure();
    const watch: Ref[] = [[STRUCTURES, structure.id], ...structure.items.map((i): Ref => [ITEMS, i])];
    const common = (args: Record<string, unknown>) => [
      quiet('with a stale expectedVersion: CONFLICT', () =>
        gqlRefused(field, { ...args, structureId: structure.id, expectedVersion: 9 }, 'CONFLICT'),
      ),
      quiet('on a missing structure: NOT_FOUND', () =>
        gqlRefused(field, { ...args, structureId: MISSING_ID }, 'NOT_FOUND'),
      ),
    ];
    const newItems = async (args: Record<string, unknown>): Promise<Ref[]> => {
      const result = await gqlOk(
        field,
        { ...args, structureId: structure.id, expectedVersion: 1 },
        STRUCTURE_SELECTION,
      );
      expect(result.version).toBe(2);
      return result.items
        .map((i: { id: number }) => i.id)
        .filter((i: number) => !structure.items.includes(i))
        .map((i: number): Ref => [ITEMS, i]);
    };
    const [, , third] = await rawMaterials(3);

    if (kind.kind === 'addItems') {
      const items = [await itemInput(field, 'items', third!, { is_phantom: true })];
      return [
        {
          what,
          watch,
          run: () => newItems({ items }),
          leaves: [
            [STRUCTURES, 'updated'],
            [ITEMS, 'created'],
          ],
          refused: [
            ...common({ items }),
            quiet("with the structure's own product: BOM_CYCLE", async () =>
              gqlRefused(
                field,
                { structureId: structure.id, items: [await itemInput(field, 'items', structure.productId)] },
                'BOM_CYCLE',
              ),
            ),
          ],
          after: [
            quiet(
              'with no items',
              async () => void (await gqlOk(field, { structureId: structure.id, items: [] }, 'id')),
            ),
          ],
        },
      ];
    }
    if (kind.kind === 'replaceItems') {
      const items = [await itemInput(field, 'items', third!, { loss_percentage: 7 })];
      return [
        {
          what,
          watch,
          run: () => newItems({ items }),
          leaves: [
            [STRUCTURES, 'updated'],
            [ITEMS, 'deleted'],
            [ITEMS, 'created'],
          ],
          refused: common({ items }),
          after: [],
        },
      ];
    }
    const itemIds = [structure.items[1]!];
    return [
      {
        what,
        watch,
        run: () => newItems({ itemIds }),
        leaves: [
          [STRUCTURES, 'updated'],
          [ITEMS, 'deleted'],
        ],
        refused: common({ itemIds }),
        after: [
          quiet(
            'of an item it no longer holds',
            async () => void (await gqlOk(field, { structureId: structure.id, itemIds }, 'id')),
          ),
        ],
      },
    ];
  }

  /** The same entries through GraphQL: `changes` after the cursor, and the newest of each resource's `history`. */
  async function expectSameInGraphQL(cursor: string, entries: readonly Entry[], types?: string[]): Promise<void> {
    const res = await api.env.gql(
      `query($after: String, $types: [ResourceType!]) { changes(after: $after, first: 500, types: $types) { nodes { cursor type id op version changed before after actor at changeRequestId } pageInfo { hasNextPage endCursor } } }`,
      { after: cursor, types: types?.map((t) => t.toUpperCase()) },
      { token: graphqlToken },
    );
    expect(res.body.errors).toBeUndefined();
    const { nodes, pageInfo } = res.body.data!.changes;
    expect(pageInfo.hasNextPage).toBe(false);
    expect(
      nodes.map(({ changeRequestId, ...n }: any) => ({
        ...n,
        changeRequest: changeRequestId === null ? null : Number(changeRequestId),
        seq: Number(n.cursor),
        type: n.type.toLowerCase(),
        op: n.op.toLowerCase(),
        at: Math.floor(Date.parse(n.at) / 1000),
      })),
    ).toEqual(entries.map((e) => ({ ...e, cursor: String(e.seq), at: Date.parse(e.at) / 1000 })));
    for (const entry of entries) {
      // A change request has no `history`: its entries are read in the log.
      if (entry.op === 'deleted' || entry.type === 'change_requests') continue;
      const query = `{ node: ${camel(singular(entry.type))}(id: ${entry.id}) { version history(first: 1) { nodes { cursor op version changed before after actor } } } }`;
      const history = await api.env.gql(query, undefined, { token: graphqlToken });
      expect(history.body.errors).toBeUndefined();
      const node = history.body.data!.node;
      expect(node.version, `${entry.type}/${entry.id} version`).toBe(entry.version);
      expect(node.history.nodes, `${entry.type}/${entry.id} history`).toEqual([
        {
          cursor: String(entry.seq),
          op: entry.op.toUpperCase(),
          version: entry.version,
          changed: entry.changed,
          before: entry.before,
          after: entry.after,
          actor: entry.actor,
        },
      ]);
    }
  }

  it.each(MUTATIONS.map((field) => [field.name, field] as const))('GraphQL mutation %s', async (_name, field) => {
    for (const write of await mutationCases(field)) {
      const cursor = await cursorNow();
      const entries = await check(write, graphqlActor);
      // `check` ran refused writes first (no entry) and quiet ones after: the entries after the
      // cursor are those of the write.
      expect(summary(await entriesAfter(cursor))).toEqual(summary(entries));
      await expectSameInGraphQL(cursor, entries);
    }
  });

  it('the mutations of webhook endpoints leave no entry', async () => {
    const cursor = await cursorNow();
    const run = async (query: string) => {
      const res = await api.env.t.request('/graphql', {
        method: 'POST',
        headers: { Authorization: `Bearer ${graphqlToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      const body = (await res.json()) as { data?: any; errors?: unknown };
      expect(body.errors, query).toBeUndefined();
      return body.data;
    };
    const made = await run(
      'mutation { createWebhook(input: { url: "https://93.184.216.34/hook" }) { webhook { id } } }',
    );
    const id = made.createWebhook.webhook.id;
    await run(`mutation { updateWebhook(id: ${id}, input: { description: "ERP" }) { id } }`);
    await run(`mutation { rotateWebhookSecret(id: ${id}) { secret } }`);
    await run(`mutation { replayWebhook(id: ${id}, after: "${cursor}") { id } }`);
    await run(`mutation { deleteWebhook(id: ${id}) }`);
    const ran = [...WEBHOOK_MUTATIONS].sort();
    expect(
      Object.keys(schema.getMutationType()!.getFields())
        .filter((n) => n.endsWith('Webhook') || n === 'rotateWebhookSecret')
        .sort(),
    ).toEqual(ran);
    expect(await entriesAfter(cursor)).toEqual([]);
  });

  it("the mutations of change requests leave the requests' entries (created, and each state they move to), and those of the writes of an applied request, which name it", async () => {
    const product = await api.create('products');
    const cursor = await cursorNow();
    const run = async (query: string, token: string, variables?: Record<string, unknown>) => {
      const res = await api.env.t.request('/graphql', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { data?: any; errors?: unknown };
      expect(body.errors, query).toBeUndefined();
      return body.data;
    };
    const propose = async (price: number) =>
      (
        await run(
          'mutation($ops: AtomicOperations!) { createChangeRequest(input: { operations: $ops }) { id } }',
          graphqlToken,
          {
            ops: [
              {
                op: 'update',
                ref: { type: 'products', id: String(product.id) },
                data: { type: 'products', attributes: { consumer_price: price } },
              },
            ],
          },
        )
      ).createChangeRequest.id as number;
    const withdrawn = await propose(1.11);
    await run(`mutation { withdrawChangeRequest(id: ${withdrawn}) { id } }`, graphqlToken);
    const rejected = await propose(2.22);
    await run(`mutation { rejectChangeRequest(id: ${rejected}) { id } }`, api.env.token);
    const approved = await propose(3.33);
    await run(`mutation { approveChangeRequest(id: ${approved}) { id } }`, api.env.token);
    expect(
      Object.keys(schema.getMutationType()!.getFields())
        .filter((n) => n.endsWith('ChangeRequest'))
        .sort(),
    ).toEqual([...CHANGE_REQUEST_MUTATIONS].sort());
    // A follower that names no type gets the resources' entries only.
    expect((await entriesAfter(cursor)).map((e) => e.type)).toEqual(['products']);
    const types = ['products', 'change_requests'];
    const entries = await entriesAfter(cursor, types.join(','));
    const created = ['state', 'comment', 'effective_date', 'author', 'types', 'operations'];
    expect(entries.map((e) => [e.type, e.id, e.op, e.changed, e.actor, e.before, e.after?.state])).toEqual([
      ['change_requests', withdrawn, 'created', created, graphqlActor, null, 'pending'],
      ['change_requests', withdrawn, 'updated', ['state'], graphqlActor, { state: 'pending' }, 'withdrawn'],
      ['change_requests', rejected, 'created', created, graphqlActor, null, 'pending'],
      ['change_requests', rejected, 'updated', ['state'], restActor, { state: 'pending' }, 'rejected'],
      ['change_requests', approved, 'created', created, graphqlActor, null, 'pending'],
      [
        'products',
        Number(product.id),
        'updated',
        ['consumer_price'],
        graphqlActor,
        { consumer_price: product.attributes.consumer_price },
        undefined,
      ],
      ['change_requests', approved, 'updated', ['state'], restActor, { state: 'pending' }, 'applied'],
    ]);
    expect(entries.map((e) => e.changeRequest)).toEqual([null, null, null, null, null, approved, null]);
    await expectSameInGraphQL(cursor, entries, types);
  });

  it("one name for two fields: a supplier's `currency` attribute (free text) is in its entries as well as its `currency` relationship", async () => {
    const supplier = await api.create('suppliers');
    const id = Number(supplier.id);
    expect(supplier.attributes.currency).not.toBe('XTS');
    // Only the attribute changes: the write makes a new version, so it must leave an entry.
    let cursor = await cursorNow();
    const updated = await api.ok('PATCH', `/suppliers/${id}`, {
      data: { type: 'suppliers', attributes: { currency: 'XTS' } },
    });
    expect(updated.data.meta.version).toBe(supplier.meta.version + 1);
    const entries = await entriesAfter(cursor);
    expect(
      summary(entries),
      'PATCH of the currency attribute alone: the supplier has a new version, so an entry',
    ).toEqual([`suppliers/${id} updated`]);
    expect(entries[0]!.version).toBe(updated.data.meta.version);
    // The attribute goes by its column where the relationship has its name.
    expect(entries[0]).toMatchObject({
      changed: ['currency_text'],
      before: { currency_text: supplier.attributes.currency },
      after: { currency_text: 'XTS' },
    });
    // Created: every field, the currency text as well as the currency link.
    cursor = await cursorNow();
    const body = await api.addBody('suppliers', { attributes: { currency: 'XAU' } });
    const created = await api.ok('POST', '/suppliers', body, 201);
    const [entry] = await entriesAfter(cursor);
    expect(entry!.after, 'created: after carries the currency link').toEqual(
      expect.objectContaining({ name: created.data.attributes.name }),
    );
    expect(JSON.stringify(entry!.after), 'created: after carries the currency link').toContain(
      JSON.stringify(created.data.relationships.currency.data),
    );
    expect(entry!.after, 'created: after carries the currency text').toMatchObject({ currency_text: 'XAU' });
  });

  it("values in REST's forms at their edges: decimals, text merged by language, small objects merged by key, nulls", async () => {
    const product = Number((await api.create('products')).id);
    const updateProduct = MUTATIONS.find((m) => m.name === 'updateProduct')!;
    const rest = (attributes: Record<string, unknown>) => async () => {
      expectStatus(await api.patch(`/products/${product}`, { data: { type: 'products', attributes } }), 200);
      return [];
    };
    const writes: [string, () => Promise<Ref[]>, string][] = [
      [
        'REST: tiny and large decimals, a language of a name, a key of shelf_life, a GTIN with leading zeros',
        rest({
          nlc: 1e-7,
          consumer_price: 123456789012.345,
          name: { fr: 'Pain' },
          shelf_life: { interval: 'weeks' },
          gtin: withCheckDigit(`0000${String(api.next()).padStart(8, '0')}`),
        }),
        restActor,
      ],
      [
        'REST: zero, 1e-15, 5e-30, a language cleared, a GTIN cleared',
        rest({
          drained_weight_in_kilogram: 0,
          net_weight_in_kilogram: 1e-15,
          production_efficiency_per_hour: 5e-30,
          name: { en: null },
          gtin: null,
        }),
        restActor,
      ],
      [
        'GraphQL: decimals given as strings with trailing zeros, the other key of shelf_life',
        async () => {
          await gqlOk(
            updateProduct,
            { id: product, input: { consumerPrice: '3.10', depositPrice: '0.500', shelfLife: { value: '7.00' } } },
            'id',
          );
          return [];
        },
        graphqlActor,
      ],
    ];
    for (const [what, run, actor] of writes)
      await observe(
        { what, watch: [['products', product]], run, leaves: [['products', 'updated']], refused: [], after: [] },
        actor,
      );
  });

  it('a GraphQL document of several mutations, one refused: entries for those that ran, none for the refused one', async () => {
    const brand = await api.create('brands');
    const cursor = await cursorNow();
    const res = await api.env.gql(
      `mutation($a: String!, $b: String!, $c: String!) {
        first: updateBrand(id: ${brand.id}, input: { reference: $a }) { id version }
        refused: updateBrand(id: ${MISSING_ID}, input: { reference: $b }) { id version }
        last: createBrand(input: { reference: $c }) { id version }
      }`,
      { a: api.unique('MULTI'), b: api.unique('MULTI'), c: api.unique('MULTI') },
      { token: graphqlToken },
    );
    expect(res.body.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    const { first, refused, last } = res.body.data as any;
    expect(refused).toBeNull();
    const entries = await entriesAfter(cursor);
    expect(entries.map((e) => [e.type, e.id, e.op, e.version, e.actor])).toEqual([
      ['brands', brand.id, 'updated', first.version, graphqlActor],
      ['brands', last.id, 'created', 1, graphqlActor],
    ]);
  });

  it('the actor is the client of the token: a REST write and a GraphQL write by two clients', async () => {
    const cursor = await cursorNow();
    await api.create('brands');
    const field = MUTATIONS.find((m) => m.name === 'createBrand')!;
    await gqlOk(field, { input: { reference: api.unique('ACTOR') } }, 'id');
    const entries = await entriesAfter(cursor);
    expect(entries.map((e) => e.actor)).toEqual([restActor, graphqlActor]);
  });
});
