/**
 * The REST compatibility layer: every route of the route table (./routes.ts) answered as the old
 * interface did, through the data layer: reads through the request's loaders (./documents.ts),
 * writes through the same write operations as GraphQL, each one transaction.
 *
 * Kept whole: one handler per kind of route of the old interface, each a few lines over the state
 * they share (the request's loaders, entity tags, kept answer bytes and totals); apart, they
 * would pass that state around.
 */
import { type DataSource, readingAs } from '../data/visible.ts';
import type { Access } from '../permissions/access.ts';
import { authorizeRoute } from './authorize.ts';
import { Hono, type Context } from 'hono';
import { KeptTotals, listPage } from '../data/list.ts';
import { type Row, rowWithLogPosition } from '../data/load.ts';
import { loadAll, RequestLoaders, targetOf } from '../data/request.ts';
import { AtomicWriter } from '../data/atomic-writes.ts';
import { asTheRoleSees } from '../data/update-batches.ts';
import { idFromText } from '../db/integers.ts';
import type { WriteOptions } from '../data/writes.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../observability/logger.ts';
import { HttpError, JSON_CONTENT_TYPE } from '../http/errors.ts';
import { resourceByType } from '../resources/registry.ts';
import { identifiers, itemInputs, readDocument, toOneIdentifier, writeInput } from './body.ts';
import { atomicOperations } from './atomic.ts';
import { needsApproval, ProposalRefused } from '../change-requests/approval.ts';
import type { ChangeRequests } from '../change-requests/requests.ts';
import { atomicOperationOf, proposalAnswer, refuseWaitingStructure, withData } from './proposals.ts';
import { asOfMeta, keepsTotals, readingAt } from './as-of.ts';
import { changesRoutes, withChangesCursor } from './changes.ts';
import { EntityTags, lastModified, lastModifiedHeader, READ_CACHE_CONTROL } from './conditional.ts';
import { DocumentBytes, documentJson, type ResourceJson } from './document-bytes.ts';
import { apiBase, Documents, type ResourceObject } from './documents.ts';
import { pageLinks, parseQuery, type Query } from './query.ts';
import { methodsByPath, REST_ROUTES, type RestRoute } from './routes.ts';

export interface RestOptions {
  db: Database;
  basePath: string;
  maxBodyBytes: number;
  /** Reverse proxies trusted for X-Forwarded-Proto (Config.trustProxy): links must use the scheme clients used. */
  trustProxy: number;
  /** The service's log, for what goes wrong that the answer does not say (./atomic.ts). */
  logger: Logger;
  /** Where the writes of a role that needs approval go (src/change-requests). */
  requests: ChangeRequests;
}

const JSON_TYPE = { 'Content-Type': JSON_CONTENT_TYPE };

function bytesOf(document: unknown): Buffer<ArrayBuffer> {
  return Buffer.from(JSON.stringify(document));
}

function json(c: Context, body: unknown, status: 200 | 201 | 202 = 200, headers: Record<string, string> = {}) {
  return c.body(bytesOf(body), status, { ...JSON_TYPE, ...headers });
}

function notFound(type: string, id: string | number): HttpError {
  return new HttpError(404, 'not_found', `${type} ${id} not found`);
}

/** What the client's role may see and do (src/permissions); none for admin. */
function roleOf(c: Context): Access | undefined {
  return c.get('auth')?.access;
}

/** What a handler reads with: the request's loaders and its document builder (RestHandlers.request). */
interface RequestState {
  loaders: RequestLoaders;
  docs: Documents;
}

/**
 * The handler of each kind of route (./routes.ts `operation`): parse the query, read the body,
 * write through the data layer, answer the document as it now is. Reads answer with entity
 * tags (304 when the client holds the current one); writes pass If-Match on as the version the
 * write expects.
 */
class RestHandlers {
  private readonly tags: EntityTags;
  /** GET answers' bytes, with the resource objects in them kept between requests (./document-bytes.ts). */
  private readonly answers = new DocumentBytes();
  /** Lists' totals, counted again only after a write (../data/list.ts). */
  private readonly totals = new KeptTotals();

  constructor(private readonly options: RestOptions) {
    this.tags = new EntityTags(options.basePath);
  }

  /**
   * A GET answer with its entity tag (and, for a resource's own document, when it was last
   * modified), or 304 without a body when the client holds it; 412 when its preconditions fail.
   */
  private async tagged(
    c: Context,
    tag: string,
    body: () => Buffer<ArrayBuffer> | Promise<Buffer<ArrayBuffer>>,
    modified?: Date,
  ) {
    const headers: Record<string, string> = { ETag: tag, 'Cache-Control': READ_CACHE_CONTROL };
    if (modified) headers['Last-Modified'] = modified.toUTCString();
    if (this.tags.notModified(c, tag, modified)) return c.body(null, 304, headers);
    return c.body(await body(), 200, { ...JSON_TYPE, ...headers });
  }

  /**
   * A GET answer tagged by what its bytes are a function of (./document-bytes.ts); with the log's
   * position added after the tag is taken (./changes.ts).
   */
  private read(c: Context, document: Record<string, unknown>, position?: { cursor: number; intoMeta: boolean }) {
    const { parts, fingerprint } = documentJson(document);
    return this.tagged(c, this.tags.ofFingerprint(fingerprint), () =>
      position ? withChangesCursor(parts, position.cursor, position.intoMeta) : Buffer.concat(parts),
    );
  }

  /** A GET answer's resource objects, as JSON kept between requests (./document-bytes.ts). */
  private asJson(docs: Documents) {
    return (type: string, rows: readonly Row[]): ResourceJson[] => docs.resourcesJson(type, rows, this.answers);
  }

  /** A write to /{type}/{id} or below: what its preconditions ask of the resource. */
  private conditions(c: Context, route: RestRoute): WriteOptions {
    return this.tags.writeConditions(c, route.type, roleOf(c));
  }

  /**
   * The tag of a resource's own document as the client's role sees it: by its version, and, where
   * the role sees only some of the related rows, what the document shows of them.
   */
  private resourceTag(c: Context, docs: Documents, type: string, row: Row): string {
    const access = roleOf(c);
    const related = access?.dependsOnOthers(type) ? docs.relatedDigest(type, row) : undefined;
    return this.tags.resource(type, row.version as number, access, related);
  }

  /**
   * The state a handler works with: the request's loaders (over its reads, routed for its client,
   * or over `past`: reads as of an instant) and document builder.
   */
  private request(c: Context, past?: DataSource) {
    const auth = c.get('auth');
    const loaders = new RequestLoaders(readingAs(past ?? this.options.db.readsFor(auth?.clientId), auth?.access));
    return { loaders, docs: new Documents(loaders, apiBase(c, this.options.basePath, this.options.trustProxy)) };
  }

  /** A GET's work on the request's state: of the present, or with `as_of` of the past (./as-of.ts). */
  private reading(c: Context, query: Query, work: (state: RequestState) => Promise<Response>): Promise<Response> {
    return readingAt(this.options.requests, query, (past) => work(this.request(c, past)));
  }

  /** Writes for the request's client, with what the idempotency layer runs before each commit (src/http/idempotency.ts). */
  private writer(c: Context): AtomicWriter {
    return new AtomicWriter(this.options.db, {
      apiClientId: c.get('auth')?.clientId,
      access: c.get('auth')?.access,
      beforeCommit: c.get('beforeCommit'),
    });
  }

  /** POST /operations: JSON:API atomic operations (./atomic.ts). */
  atomic(c: Context): Promise<Response> {
    return atomicOperations(c, {
      writer: this.writer(c),
      access: roleOf(c),
      maxBodyBytes: this.options.maxBodyBytes,
      logger: this.options.logger,
      request: () => this.request(c),
      propose: (operations) => this.proposed(c, operations),
    });
  }

  /** Writes of a role that needs approval, as a change request: 202 (./proposals.ts). */
  proposed(c: Context, operations: unknown[]): Promise<Response> {
    const base = apiBase(c, this.options.basePath, this.options.trustProxy);
    return proposalAnswer(c, this.options.requests, base, operations);
  }

  /** A REST write (`operation`, the atomic operation it stands for, without its data) as a change request. */
  async propose(c: Context, route: RestRoute, operation: Record<string, unknown>): Promise<Response> {
    parseQuery(c, route, roleOf(c));
    const document = await readDocument(c, this.options.maxBodyBytes);
    const proposal = withData(operation, document, operation.ref ? this.conditions(c, route) : {});
    try {
      return await this.proposed(c, [proposal]);
    } catch (error) {
      // Refused as the path refuses the write itself.
      if (error instanceof ProposalRefused) throw error.failure.error;
      throw error;
    }
  }

  private pathId(c: Context, type: string): number {
    const raw = c.req.param('id') ?? '';
    // A path that names no id the database could hold names no resource.
    const id = idFromText(raw);
    if (id === undefined) throw notFound(type, raw);
    return id;
  }

  private async existing(loaders: RequestLoaders, type: string, id: number): Promise<Row> {
    const row = await loaders.byId(type).load(id);
    if (!row) throw notFound(type, id);
    return row;
  }

  /**
   * `{data, included?}` for one resource: `included` present when something was asked for. Its
   * resource objects as what `make` makes of rows (GET answers: JSON kept between requests).
   */
  private async single<R = ResourceObject>(
    docs: Documents,
    type: string,
    row: Row,
    query: Query,
    make: (type: string, rows: readonly Row[]) => R[] = (t, r) => docs.resources(t, r) as R[],
  ) {
    const [[data], included] = await Promise.all([
      make(type, [row]),
      query.include.length > 0 ? docs.included(type, [row], query.include, make) : undefined,
    ]);
    return included ? { data, included } : { data };
  }

  /**
   * A relationship document `{links, data}` as it now stands (fresh loaders: after a write), with
   * the resources it points at `included` when asked: as resource objects, or as JSON kept
   * between requests (GET answers).
   */
  private async relationshipDocument(
    c: Context,
    route: RestRoute,
    id: number,
    withIncluded: false | 'objects' | 'json' = false,
    { loaders, docs }: RequestState = this.request(c),
  ) {
    const row = await this.existing(loaders, route.type, id);
    const [data] = await docs.relationshipData(route.type, [row], route.relationship!);
    const document: Record<string, unknown> = {
      links: docs.relationshipLinks(route.type, id, route.relationship!),
      data,
    };
    if (withIncluded === 'objects') document.included = await docs.included(route.type, [row], [route.relationship!]);
    if (withIncluded === 'json')
      document.included = await docs.included(route.type, [row], [route.relationship!], this.asJson(docs));
    return document;
  }

  list(c: Context, route: RestRoute): Promise<Response> {
    const query = parseQuery(c, route, roleOf(c));
    return this.reading(c, query, (state) => this.listOf(c, route, query, state));
  }

  private async listOf(c: Context, route: RestRoute, query: Query, { loaders, docs }: RequestState) {
    const list = {
      where: { kind: 'and' as const, items: query.conditions },
      orderBy: [],
      limit: query.perPage,
      offset: (query.page - 1) * query.perPage,
    };
    const {
      rows,
      total,
      logPosition: cursor,
    } = await listPage(
      loaders.source,
      route.type,
      list,
      loaders.columns(route.type),
      keepsTotals(query) ? this.totals : undefined,
    );
    loaders.prime(route.type, rows);
    const asJson = this.asJson(docs);
    const [data, included] = await Promise.all([
      asJson(route.type, rows),
      docs.included(route.type, rows, query.include, asJson),
    ]);
    const pages = Math.ceil(total / query.perPage);
    // `meta` last: changes_cursor is spliced into it after the tag is taken (./changes.ts).
    return this.read(
      c,
      {
        data,
        included,
        links: pageLinks(c, docs.base, route, query, pages),
        meta: { total, count: rows.length, pages, per_page: query.perPage, ...asOfMeta(query) },
      },
      { cursor, intoMeta: true },
    );
  }

  get(c: Context, route: RestRoute): Promise<Response> {
    const id = this.pathId(c, route.type);
    const query = parseQuery(c, route, roleOf(c));
    return this.reading(c, query, (state) => this.getOf(c, route, id, query, state));
  }

  private async getOf(c: Context, route: RestRoute, id: number, query: Query, { loaders, docs }: RequestState) {
    const found = await rowWithLogPosition(loaders.source, route.type, id, loaders.columns(route.type));
    if (!found) throw notFound(route.type, id);
    const { row, logPosition: cursor } = found;
    loaders.prime(route.type, [row]);
    const document = () => this.single(docs, route.type, row, query, this.asJson(docs));
    if (query.asOf) return this.read(c, { ...(await document()), meta: asOfMeta(query) }, { cursor, intoMeta: true });
    if (query.include.length > 0) return this.read(c, await document(), { cursor, intoMeta: false });
    // The resource's own document: its tag is known before the document is made.
    return this.tagged(
      c,
      this.resourceTag(c, docs, route.type, row),
      async () => withChangesCursor(documentJson(await document()).parts, cursor, false),
      lastModified(route.type, row),
    );
  }

  async add(c: Context, route: RestRoute): Promise<Response> {
    const query = parseQuery(c, route, roleOf(c));
    this.tags.collectionConditions(c);
    const document = await readDocument(c, this.options.maxBodyBytes);
    const id = await this.writer(c).create(route.type, writeInput(document.data, route.type, 'data'));
    const { loaders, docs } = this.request(c);
    const row = await this.existing(loaders, route.type, id);
    // RFC 9110 §15.3.2: the validator of the new resource, for a conditional write to follow.
    return json(c, await this.single(docs, route.type, row, query), 201, {
      Location: docs.resourceLink(route.type, id),
      ETag: this.resourceTag(c, docs, route.type, row),
      ...lastModifiedHeader(route.type, row),
    });
  }

  async update(c: Context, route: RestRoute): Promise<Response> {
    const id = this.pathId(c, route.type);
    const query = parseQuery(c, route, roleOf(c));
    const document = await readDocument(c, this.options.maxBodyBytes);
    // The resource as the write left it: the answer needs no read of it.
    const written = await this.writer(c).update(
      route.type,
      id,
      writeInput(document.data, route.type, 'data', id),
      this.conditions(c, route),
    );
    const { loaders, docs } = this.request(c);
    // The row as written shows every related row; a role that sees only some reads it as it sees
    // it, unless the write read it so (a batched update: ../data/update-batches.ts).
    const row =
      roleOf(c)?.dependsOnOthers(route.type) && !asTheRoleSees(written)
        ? await this.existing(loaders, route.type, id)
        : written;
    loaders.prime(route.type, [row]);
    // Some answers always include related resources (the spec shows a structure's items).
    const always = resourceByType(route.type)!.includes.update ?? [];
    const include = [...new Set([...query.include, ...always])];
    // The resource's new tag (what its GET without include answers), for the next conditional
    // write (RFC 5789 §2). Not on PUT: RFC 9110 §9.3.4 forbids it when the server changes what was sent.
    const tag: Record<string, string> =
      c.req.method === 'PATCH'
        ? { ETag: this.resourceTag(c, docs, route.type, row), ...lastModifiedHeader(route.type, row) }
        : {};
    return json(c, await this.single(docs, route.type, row, { ...query, include }), 200, tag);
  }

  'rel-get'(c: Context, route: RestRoute): Promise<Response> {
    const id = this.pathId(c, route.type);
    const query = parseQuery(c, route, roleOf(c));
    return this.reading(c, query, async (state) => {
      const document = await this.relationshipDocument(c, route, id, query.include.length > 0 && 'json', state);
      return this.read(c, query.asOf ? { ...document, meta: asOfMeta(query) } : document);
    });
  }

  async 'rel-set'(c: Context, route: RestRoute): Promise<Response> {
    const id = this.pathId(c, route.type);
    parseQuery(c, route, roleOf(c));
    const target = targetOf(route.type, route.relationship!);
    const document = await readDocument(c, this.options.maxBodyBytes);
    await this.writer(c).setToOne(
      route.type,
      id,
      route.relationship!,
      toOneIdentifier(document, target),
      this.conditions(c, route),
    );
    return json(c, await this.relationshipDocument(c, route, id));
  }

  'related-get'(c: Context, route: RestRoute): Promise<Response> {
    const id = this.pathId(c, route.type);
    const query = parseQuery(c, route, roleOf(c));
    return this.reading(c, query, (state) => this.relatedOf(c, route, id, query, state));
  }

  private async relatedOf(c: Context, route: RestRoute, id: number, query: Query, { loaders, docs }: RequestState) {
    const row = await this.existing(loaders, route.type, id);
    const [data] = await docs.relationshipData(route.type, [row], route.relationship!);
    const target = targetOf(route.type, route.relationship!);
    const ids = Array.isArray(data) ? data.map((d) => d.id) : data ? [data.id] : [];
    const rows = (await loadAll(loaders.byId(target), ids)).filter((r): r is Row => r !== null);
    const asJson = this.asJson(docs);
    const [resources, included] = await Promise.all([
      asJson(target, rows),
      query.include.length > 0 ? docs.included(target, rows, query.include, asJson) : undefined,
    ]);
    const document: Record<string, unknown> = {
      links: { self: `${docs.base}/${route.type}/${id}/${route.relationship}` },
      data: Array.isArray(data) ? resources : (resources[0] ?? null),
    };
    if (included) document.included = included;
    if (query.asOf) document.meta = asOfMeta(query);
    return this.read(c, document);
  }

  async 'rel-add'(c: Context, route: RestRoute): Promise<Response> {
    const id = this.pathId(c, route.type);
    parseQuery(c, route, roleOf(c));
    const target = targetOf(route.type, route.relationship!);
    const document = await readDocument(c, this.options.maxBodyBytes);
    await this.writer(c).changeToMany(
      route.type,
      id,
      route.relationship!,
      { add: identifiers(document, target) },
      this.conditions(c, route),
    );
    return json(c, await this.relationshipDocument(c, route, id));
  }

  async 'rel-replace'(c: Context, route: RestRoute): Promise<Response> {
    const id = this.pathId(c, route.type);
    parseQuery(c, route, roleOf(c));
    const rel = resourceByType(route.type)!.relationships[route.relationship!]!;
    const document = await readDocument(c, this.options.maxBodyBytes);
    if (rel.storage.kind === 'children') {
      // A structure's items: full item objects that replace the old ones, which are deleted.
      await this.writer(c).replaceItems(id, itemInputs(document.data, 'data'), this.conditions(c, route));
      return json(c, await this.relationshipDocument(c, route, id, 'objects'));
    }
    await this.writer(c).changeToMany(
      route.type,
      id,
      route.relationship!,
      { set: identifiers(document, rel.target) },
      this.conditions(c, route),
    );
    return json(c, await this.relationshipDocument(c, route, id));
  }

  async 'rel-remove'(c: Context, route: RestRoute): Promise<Response> {
    const id = this.pathId(c, route.type);
    parseQuery(c, route, roleOf(c));
    const rel = resourceByType(route.type)!.relationships[route.relationship!]!;
    const document = await readDocument(c, this.options.maxBodyBytes);
    const ids = identifiers(document, rel.target);
    if (rel.storage.kind === 'children') {
      await this.writer(c).removeItems(id, ids, this.conditions(c, route));
      return json(c, await this.relationshipDocument(c, route, id, 'objects'));
    }
    await this.writer(c).changeToMany(route.type, id, route.relationship!, { remove: ids }, this.conditions(c, route));
    return json(c, await this.relationshipDocument(c, route, id));
  }

  async 'add-structure'(c: Context, route: RestRoute): Promise<Response> {
    const productId = this.pathId(c, route.type);
    const query = parseQuery(c, route, roleOf(c));
    const document = await readDocument(c, this.options.maxBodyBytes);
    const data = document.data as Record<string, unknown> | undefined;
    // The items come as full objects in the structure's `items` relationship.
    const relationships = (data?.relationships ?? {}) as Record<string, { data?: unknown }>;
    const { items: itemsMember, ...others } = relationships;
    const input = writeInput(data && { ...data, relationships: others }, 'product_structures', 'data');
    const items = itemsMember === undefined ? [] : itemInputs(itemsMember.data, 'data.relationships.items.data');
    const structureId = await this.writer(c).createStructure(
      productId,
      { attributes: input.attributes, items },
      this.conditions(c, route),
    );
    const { loaders, docs } = this.request(c);
    const row = await this.existing(loaders, 'product_structures', structureId);
    return json(c, await this.single(docs, 'product_structures', row, { ...query, include: ['items'] }), 201, {
      Location: docs.resourceLink('product_structures', structureId),
    });
  }

  async 'add-items'(c: Context, route: RestRoute): Promise<Response> {
    const structureId = this.pathId(c, route.type);
    parseQuery(c, route, roleOf(c));
    const document = await readDocument(c, this.options.maxBodyBytes);
    await this.writer(c).addItems(structureId, itemInputs(document.data, 'data'), this.conditions(c, route));
    return json(
      c,
      await this.relationshipDocument(c, { ...route, relationship: 'items' }, structureId, 'objects'),
      201,
    );
  }
}

export function restApi(options: RestOptions): Hono {
  const app = new Hono();
  const handlers = new RestHandlers(options);
  app.route('/', changesRoutes(options));

  app.post('/operations', (c) => handlers.atomic(c));
  app.all('/operations', (c) => {
    throw new HttpError(405, 'method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}; allowed: POST`, {
      Allow: 'POST',
    });
  });
  for (const route of REST_ROUTES) {
    app.on(route.method, route.path, (c) => {
      const access = roleOf(c);
      authorizeRoute(access, route);
      if (route.refused) throw new HttpError(403, 'forbidden', route.refused);
      if (access && route.operation === 'add-structure') refuseWaitingStructure(access);
      const operation = access && atomicOperationOf(route, c.req.param('id'));
      if (operation && needsApproval(access, [operation])) return handlers.propose(c, route, operation);
      return handlers[route.operation](c, route);
    });
  }
  // Every path of the route table, and every relationship's paths (some have no operation at
  // all): any other method there is 405, not 404.
  for (const [path, methods] of methodsByPath()) {
    const allow = [...new Set(methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))].join(', ');
    app.all(path, (c) => {
      throw new HttpError(
        405,
        'method_not_allowed',
        `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow}`,
        { Allow: allow },
      );
    });
  }
  return app;
}
