/**
 * The OpenAPI document of the REST layer (GET /openapi.json) and its API reference (GET /docs).
 *
 * - The document is valid OpenAPI 3.1, every $ref resolves, every schema compiles (strict JSON
 *   Schema 2020-12).
 * - It lists exactly the routes the REST layer and the token endpoints serve: the routes of the
 *   Hono apps that are mounted (src/rest/api.ts, src/auth/token-endpoint.ts) against the
 *   document's paths; a route served but not documented fails.
 * - It tells the truth: every documented operation is called against a seeded database (both
 *   providers) and each answer's status must be one the operation documents and its body must
 *   match the documented schema; request bodies the service takes match the request schemas,
 *   and bodies it refuses as unknown or missing fields do not. The token endpoints likewise:
 *   tokens, refresh, each error code and revocation.
 * - /openapi.json and /docs answer without a token, and every file the page references loads from
 *   this service (no external URL), under BASE_PATH too. On loopback, with demo data on, the page
 *   carries the demo client's token; elsewhere none. The token endpoint takes what Swagger UI sends.
 * - In headless Chromium the page renders the title, opens authorized with the demo token,
 *   "Authorize" takes a bearer token or gets one with the client credentials flow, and "Try it
 *   out" calls the API under the base path with each. Needs Debian's Chromium at
 *   /usr/bin/chromium: without it that test is skipped with a warning; under CI (CI=true) it
 *   fails instead.
 */
import { ChangeRequests } from '../../src/change-requests/requests.ts';
import { RoleBook } from '../../src/permissions/book.ts';
import { changeRequestRoutes } from '../../src/rest/change-requests.ts';
import { Readable } from 'node:stream';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Hono } from 'hono';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts/oas31';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, DEMO_CLIENT_NAME } from '../../src/auth/clients.ts';
import { DEFAULT_THROTTLE, FailureThrottle } from '../../src/auth/throttle.ts';
import { tokenEndpoints } from '../../src/auth/token-endpoint.ts';
import { TokenService } from '../../src/auth/tokens.ts';
import { systemClock } from '../../src/clock.ts';
import { webhookRoutes } from '../../src/rest/webhooks.ts';
import { Endpoints } from '../../src/webhooks/endpoints.ts';
import { Targets } from '../../src/webhooks/targets.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { restApi } from '../../src/rest/api.ts';
import { apiDocs } from '../../src/rest/docs.ts';
import { CHANGES_PATH, MAX_CHANGES_PER_PAGE } from '../../src/rest/changes.ts';
import { API_TITLE, openApiDocument, openApiPath } from '../../src/rest/openapi.ts';
import { DEFAULT_PER_PAGE, includeValues, MAX_PER_PAGE } from '../../src/rest/query.ts';
import { REST_ROUTES } from '../../src/rest/routes.ts';
import { resourceByType, resources } from '../../src/resources/registry.ts';
import type { Filter } from '../../src/resources/types.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { launchChromium, skipWithoutBrowser } from '../support/browser.ts';
import { basic } from '../support/oauth.ts';
import { startService, type RunningService } from '../support/process.ts';

/** The operations of /webhooks, each client's endpoints. */
const WEBHOOK_OPERATIONS = [
  'GET /webhooks',
  'POST /webhooks',
  'GET /webhooks/{id}',
  'PATCH /webhooks/{id}',
  'DELETE /webhooks/{id}',
  'GET /webhooks/{id}/deliveries',
  'POST /webhooks/{id}/replay',
  'POST /webhooks/{id}/rotate-secret',
];

const CHANGE_REQUEST_OPERATIONS = [
  'GET /change_requests',
  'POST /change_requests',
  'GET /change_requests/{id}',
  'GET /change_requests/{id}/preview',
  'POST /change_requests/{id}/approve',
  'POST /change_requests/{id}/reject',
  'POST /change_requests/{id}/withdraw',
];

const doc = openApiDocument();
const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;
type Operation = { method: string; path: string; operation: OperationObject };

function operations(document: OpenAPIObject): Operation[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) =>
      item[method] ? [{ method: method.toUpperCase(), path, operation: item[method]! }] : [],
    ),
  );
}

/** `METHOD /path/{id}` of every route a Hono app serves, other than its catch-all (405) handlers. */
function servedRoutes(app: Hono): string[] {
  return [...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${openApiPath(r.path)}`))];
}

/** Routes the app serves that the document does not list. */
function undocumented(app: Hono, document: OpenAPIObject): string[] {
  const listed = new Set(operations(document).map((o) => `${o.method} ${o.path}`));
  return servedRoutes(app).filter((route) => !listed.has(route));
}

const resolvePointer = (document: unknown, ref: string): unknown =>
  ref
    .slice(2)
    .split('/')
    .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);

/** The documented answer of an operation for a status, its $ref resolved. */
function documentedResponse(method: string, path: string, status: number): ResponseObject | undefined {
  const operation = (doc.paths![path] as Record<string, OperationObject>)[method.toLowerCase()]!;
  const response = operation.responses?.[String(status)] as ResponseObject | ReferenceObject | undefined;
  return response && '$ref' in response ? (resolvePointer(doc, response.$ref) as ResponseObject) : response;
}

/**
 * JSON Schema validation with the document's own schemas: components are loaded as `$defs` of one
 * schema, so an inline schema's `#/components/schemas/X` resolves to them. Strict: a keyword Ajv
 * does not know (a typo in the document) is an error.
 */
function schemaValidator(document: OpenAPIObject) {
  const id = 'https://gateway.test/openapi.json';
  // strictRequired off: `{allOf: [attributes], required: [...]}` names properties the referenced schema defines.
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  const rewrite = <T>(value: T): T =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', `"${id}#/$defs/`));
  ajv.addSchema({ $id: id, $defs: rewrite(document.components!.schemas!) });
  const cache = new Map<unknown, ValidateFunction>();
  return {
    compileAll: () => {
      for (const name of Object.keys(document.components!.schemas!)) ajv.getSchema(`${id}#/$defs/${name}`);
    },
    check(schema: SchemaObject | ReferenceObject, value: unknown): string | undefined {
      let validate = cache.get(schema);
      if (!validate) cache.set(schema, (validate = ajv.compile(rewrite(schema))));
      return validate(value) ? undefined : ajv.errorsText(validate.errors, { separator: '\n' });
    },
  };
}

const schemas = schemaValidator(doc);

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1: every $ref resolves, every schema compiles, operation ids are unique', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)) as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');

    const refs = new Set<string>();
    JSON.stringify(doc, (key, value) => {
      if (key === '$ref') refs.add(value);
      return value;
    });
    expect(refs.size).toBeGreaterThan(50);
    for (const ref of refs) expect(resolvePointer(doc, ref), ref).toBeDefined();

    expect(() => schemas.compileAll()).not.toThrow();
    const ids = operations(doc).map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists every route of the route table, once, with the bearer scheme on all of them', () => {
    const rest = operations(doc).filter((o) => !o.path.startsWith('/oauth/'));
    expect(rest.map((o) => `${o.method} ${o.path}`).sort()).toEqual(
      [
        ...REST_ROUTES.map((r) => `${r.method} ${openApiPath(r.path)}`),
        `GET ${CHANGES_PATH}`,
        'POST /operations',
        ...WEBHOOK_OPERATIONS,
        ...CHANGE_REQUEST_OPERATIONS,
      ].sort(),
    );
    expect(doc.components!.securitySchemes!.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    // A token given as it is, or got by "Authorize" from a client id and secret.
    expect(doc.security).toEqual([{ bearerAuth: [] }, { oauth2: [] }]);
    for (const { operation } of rest) {
      expect(operation.security).toBeUndefined();
      expect(Object.keys(operation.responses ?? {})).toContain('401');
      expect(Object.keys(operation.responses ?? {})).toContain('403');
    }
  });

  it('lists how to get a token first: the oauth tag before the resource types', () => {
    expect(doc.tags!.map((t) => t.name)).toEqual([
      'oauth',
      ...resources.map((r) => r.type),
      'changes',
      'operations',
      'webhooks',
      'change_requests',
    ]);
    expect(resources).toHaveLength(21);
  });

  it('offers the client credentials flow at the token endpoint beside the bearer scheme, under the base path', () => {
    const oauth2 = (basePath: string) => openApiDocument(basePath).components!.securitySchemes!.oauth2;
    expect(oauth2('')).toEqual({
      type: 'oauth2',
      description: expect.stringContaining('client credentials'),
      flows: {
        clientCredentials: {
          tokenUrl: '/oauth/token.php',
          scopes: { read: expect.any(String), write: expect.any(String) },
        },
      },
    });
    // Swagger UI takes the token URL from the host: it carries the base path.
    expect(oauth2('/masterdata')).toMatchObject({
      flows: { clientCredentials: { tokenUrl: '/masterdata/oauth/token.php' } },
    });
    expect(Object.keys(doc.components!.securitySchemes!).sort()).toEqual(['bearerAuth', 'clientBasic', 'oauth2']);
  });

  it('lists the token endpoints, with client authentication (HTTP Basic or the form) instead of a bearer token', () => {
    const oauth = operations(doc).filter((o) => o.path.startsWith('/oauth/'));
    expect(oauth.map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      'POST /oauth/revoke.php',
      'POST /oauth/token.php',
    ]);
    expect(doc.components!.securitySchemes!.clientBasic).toMatchObject({ type: 'http', scheme: 'basic' });
    for (const { operation } of oauth) {
      expect(operation.security).toEqual([{ clientBasic: [] }, {}]);
      expect(
        Object.keys(operation.requestBody && 'content' in operation.requestBody ? operation.requestBody.content : {}),
      ).toEqual(['application/x-www-form-urlencoded']);
    }
  });

  it("documents in a related GET's `included` exactly the types its `include` values side-load", () => {
    /** The resource types an `included` schema admits (its items' `type` constants). */
    const admitted = (schema: SchemaObject | undefined): string[] => {
      if (!schema) return [];
      const items = schema.items as SchemaObject | undefined;
      const refs = (items?.oneOf ?? (items ? [items] : [])) as ReferenceObject[];
      return refs
        .map((r) => ((resolvePointer(doc, r.$ref) as SchemaObject).properties!.type as SchemaObject).const as string)
        .sort();
    };
    const routes = REST_ROUTES.filter((r) => r.operation === 'related-get');
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const target = resourceByType(resourceByType(route.type)!.relationships[route.relationship!]!.target)!;
      const sideLoaded = [
        ...new Set([...includeValues(route).values()].map((name) => target.relationships[name]!.target)),
      ].sort();
      const body = documentedResponse('GET', openApiPath(route.path), 200)!.content!['application/json']!
        .schema as SchemaObject;
      expect(admitted(body.properties!.included as SchemaObject | undefined), route.path).toEqual(sideLoaded);
    }
  });

  it('gives each operation exactly the query parameters it takes (include values, paging, filters) and the condition and retry headers', () => {
    const parameters = (operation: OperationObject) =>
      (operation.parameters ?? []).map((p) => ('$ref' in p ? (resolvePointer(doc, p.$ref) as ParameterObject) : p));
    for (const route of REST_ROUTES) {
      const path = openApiPath(route.path);
      const operation = (doc.paths![path] as Record<string, OperationObject>)[route.method.toLowerCase()]!;
      const query = parameters(operation).filter((p) => p.in === 'query');
      const where = `${route.method} ${path}`;
      const headers = parameters(operation)
        .filter((p) => p.in === 'header')
        .map((p) => p.name);
      if (!route.refused) {
        expect(headers, where).toEqual([
          route.method === 'GET' ? 'If-None-Match' : 'If-Match',
          ...(route.method === 'POST' ? ['Idempotency-Key'] : []),
        ]);
      }

      const include = query.find((p) => p.name === 'include');
      const allowed = [...includeValues(route).keys()];
      if (allowed.length === 0) expect(include, where).toBeUndefined();
      else {
        expect(include, where).toMatchObject({ in: 'query', style: 'form', explode: false });
        expect((include!.schema as SchemaObject).items, where).toEqual({ type: 'string', enum: allowed });
      }

      const others = query.filter((p) => p.name !== 'include').map((p) => p.name);
      if (route.operation === 'list') {
        expect(others, where).toEqual(['page', 'per_page', ...Object.keys(resourceByType(route.type)!.filters)]);
        expect(query.find((p) => p.name === 'per_page')!.schema).toEqual({
          type: 'integer',
          minimum: 1,
          maximum: MAX_PER_PAGE,
          default: DEFAULT_PER_PAGE,
        });
        expect(query.find((p) => p.name === 'page')!.schema).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
      } else {
        expect(others, where).toEqual([]);
      }

      const pathParameters = ((doc.paths![path]!.parameters ?? []) as ParameterObject[]).filter((p) => p.in === 'path');
      expect(
        pathParameters.map((p) => p.name),
        where,
      ).toEqual(route.path.includes(':id') ? ['id'] : []);
    }
  });

  it('describes every resource type with all its attributes and relationships', () => {
    const components = doc.components!.schemas! as Record<string, SchemaObject>;
    for (const resource of resources) {
      const object = Object.values(components).find(
        (s) =>
          (s.properties?.type as SchemaObject | undefined)?.const === resource.type && s.required?.includes('links'),
      );
      expect(object, resource.type).toBeDefined();
      const attributes = resolvePointer(doc, (object!.properties!.attributes as ReferenceObject).$ref) as SchemaObject;
      expect(Object.keys(attributes.properties!)).toEqual(Object.keys(resource.attributes));
      expect(attributes.required).toEqual(Object.keys(resource.attributes));
      const relationships = object!.properties!.relationships as SchemaObject | ReferenceObject;
      const names =
        '$ref' in relationships && relationships.$ref
          ? Object.keys((resolvePointer(doc, relationships.$ref) as SchemaObject).properties!)
          : [];
      expect(names).toEqual(Object.keys(resource.relationships));
    }
  });
});

describe('the document lists every route the REST layer serves', () => {
  let database: MigratedDatabase;
  beforeAll(async () => {
    database = await migratedDatabase('sqlite');
  });
  afterAll(async () => database?.cleanup());

  const rest = () =>
    restApi({
      db: database.db,
      basePath: '',
      maxBodyBytes: 1024 * 1024,
      trustProxy: 0,
      logger: createLogger('silent'),
      requests: new ChangeRequests(database.db, new RoleBook(database.db.prisma, database.db.provider)),
    });
  const webhooks = () =>
    webhookRoutes({
      endpoints: new Endpoints(database.db, new Targets({ allowHttp: false, allowedNetworks: [] }), systemClock),
      basePath: '',
      trustProxy: 0,
      maxBodyBytes: 1024,
    });
  const changeRequests = () =>
    changeRequestRoutes({
      db: database.db,
      requests: new ChangeRequests(database.db, new RoleBook(database.db.prisma, database.db.provider)),
      basePath: '',
      trustProxy: 0,
      maxBodyBytes: 1024,
    });
  const oauth = () =>
    tokenEndpoints({
      tokens: new TokenService(database.db.prisma, systemClock, 3600, 86400),
      throttle: new FailureThrottle(systemClock, DEFAULT_THROTTLE),
      logger: createLogger('silent'),
      trustProxy: 0,
    });

  it('the routes of the mounted REST app and token endpoints are exactly the documented operations', () => {
    const served = [
      ...servedRoutes(rest()),
      ...servedRoutes(oauth()),
      ...servedRoutes(webhooks()),
      ...servedRoutes(changeRequests()),
    ];
    // The table, the token endpoints, GET /changes, POST /operations, the webhooks' and the
    // change requests' (list, propose, read, preview, approve, reject, withdraw).
    expect(served.length).toBe(REST_ROUTES.length + 4 + WEBHOOK_OPERATIONS.length + CHANGE_REQUEST_OPERATIONS.length);
    expect(undocumented(rest(), doc)).toEqual([]);
    expect(undocumented(webhooks(), doc)).toEqual([]);
    expect(undocumented(changeRequests(), doc)).toEqual([]);
    expect(undocumented(oauth(), doc)).toEqual([]);
    const listed = operations(doc).map((o) => `${o.method} ${o.path}`);
    expect(listed.filter((route) => !served.includes(route))).toEqual([]);
  });

  it('the check fails for a route that is served but not documented', () => {
    const app = new Hono();
    app.route('/', rest());
    app.get('/customers/:id/secrets', (c) => c.text(''));
    app.delete('/customers/:id', (c) => c.text(''));
    expect(undocumented(app, doc)).toEqual(['GET /customers/{id}/secrets', 'DELETE /customers/{id}']);
  });
});

describe('GET /openapi.json and GET /docs, open', () => {
  let database: MigratedDatabase;
  beforeAll(async () => {
    database = await migratedDatabase('sqlite');
  });
  afterAll(async () => database?.cleanup());

  it.each([
    ['at the root', ''],
    ['under BASE_PATH', '/masterdata'],
  ])('%s: the document without a token, with servers naming the base path', async (_, basePath) => {
    const t = testApp(database, { basePath });
    const res = await t.request(`${basePath}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await res.json()) as OpenAPIObject;
    expect(body).toEqual(JSON.parse(JSON.stringify(openApiDocument(basePath))));
    expect(body.servers).toEqual([{ url: basePath || '/', description: expect.any(String) }]);
    expect(body.info.title).toBe(API_TITLE);

    // Revalidation: the same version is a 304; HEAD answers without a body.
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await t.request(`${basePath}/openapi.json`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const head = await t.request(`${basePath}/openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // Still a REST route next to it needs a token.
    expect((await t.request(`${basePath}/units`)).status).toBe(401);
  });

  it.each([
    ['at the root', ''],
    ['under BASE_PATH', '/masterdata'],
  ])('%s: the page and every file it references load without a token, all from this service', async (_, basePath) => {
    const t = testApp(database, { basePath });
    const page = await t.request(`${basePath}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain(`<title>${API_TITLE}</title>`);

    const references = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references.filter((r) => r.endsWith('.js')).length).toBeGreaterThanOrEqual(2);
    expect(references.filter((r) => r.endsWith('.css')).length).toBeGreaterThanOrEqual(1);
    for (const reference of references) {
      // Relative to the page, so that the page works under any base path and behind a proxy.
      expect(reference, 'an absolute or external URL').not.toMatch(/^(\/|[a-z]+:)/i);
      const url = new URL(reference, `http://localhost${basePath}/docs`);
      const res = await t.request(url.pathname);
      expect(res.status, url.pathname).toBe(200);
      const type = res.headers.get('content-type') ?? '';
      if (reference.endsWith('.js')) expect(type).toMatch(/^text\/javascript/);
      if (reference.endsWith('.css')) expect(type).toMatch(/^text\/css/);
      if (reference === 'openapi.json') expect(type).toMatch(/^application\/json/);
      const body = await res.text();
      expect(body.length, url.pathname).toBeGreaterThan(0);
      // Nothing the page runs fetches from elsewhere: no CDN in the scripts or styles we wrote.
      if (reference.startsWith('docs/docs.')) expect(body).not.toMatch(/https?:\/\//);
    }
    // The page's own script loads the document relative to the page: <base>/openapi.json.
    const script = await (await t.request(`${basePath}/docs/docs.js`)).text();
    expect(script).toContain("url: 'openapi.json'");
    expect(script).not.toMatch(/persistAuthorization:\s*true/);

    const slash = await t.request(`${basePath}/docs/`);
    expect(slash.status).toBe(301);
    expect(new URL(slash.headers.get('location')!, `http://localhost${basePath}/docs/`).pathname).toBe(
      `${basePath}/docs`,
    );
    // Not a file server: anything else under /docs needs a token like every other unknown path.
    expect((await t.request(`${basePath}/docs/package.json`)).status).toBe(401);
  });

  /** GET /docs as a browser on `host` asks for it, over a socket from `address`. */
  const docsPage = (t: TestApp, address: string, host = 'localhost', headers: Record<string, string> = {}) =>
    t.app.fetch(new Request(`http://${host}/docs`, { headers }), {
      incoming: Object.assign(Readable.from([]), { socket: { remoteAddress: address } }),
    });
  const pageToken = (html: string) => /<meta name="access-token" content="(mda_[\w-]+)">/.exec(html)?.[1];

  it("on loopback, with demo data on, the page carries the demo client's token, which works; anywhere else it carries none", async () => {
    await createClient(database.db.prisma, DEMO_CLIENT_NAME, ['read', 'write']);
    const t = testApp(database, { seedDemoData: true });
    const local = await docsPage(t, '127.0.0.1');
    expect(local.status).toBe(200);
    // A page with a token in it is kept by no cache, and framed by no other site.
    expect(local.headers.get('cache-control')).toBe('no-store');
    expect(local.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const token = pageToken(await local.text());
    expect(token, 'no token in the page').toBeDefined();
    expect((await t.request('/units', { headers: bearer(token!) })).status).toBe(200);
    // The page's script applies it to the bearer scheme once the document is loaded.
    const script = await (await t.request('/docs/docs.js')).text();
    expect(script).toContain("preauthorizeApiKey('bearerAuth', given.content)");

    for (const [address, host, headers] of [
      ['203.0.113.7', 'localhost', {}],
      ['127.0.0.1', 'gateway.example', {}],
      ['127.0.0.1', 'localhost', { 'X-Forwarded-For': '203.0.113.7' }],
    ] as const) {
      const page = await docsPage(t, address, host, headers);
      expect(page.status).toBe(200);
      expect(pageToken(await page.text()), `${address} ${host}`).toBeUndefined();
    }
    const production = testApp(database, { seedDemoData: false });
    expect(pageToken(await (await docsPage(production, '127.0.0.1')).text())).toBeUndefined();
  });

  it('the token is written into the page as HTML text, escaped', async () => {
    const docs = apiDocs({ basePath: '', pageToken: async () => 'a"><script>alert(1)</script>&' });
    const page = await (await docs.fetch(new Request('http://localhost/docs'))).text();
    expect(page).toContain(
      '<meta name="access-token" content="a&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;">',
    );
    expect(page).not.toContain('<script>alert');
  });

  it("the token endpoint takes what Swagger UI's client credentials flow sends", async () => {
    const client = await createClient(database.db.prisma, 'swagger-ui', ['read', 'write']);
    const t = testApp(database);
    // swagger-ui 5's authorizeApplication: Basic with btoa(id:secret), the scopes chosen joined by
    // spaces (form-encoded as +), its own Accept and X-Requested-With.
    const res = await t.request('/oauth/token.php', {
      method: 'POST',
      headers: {
        Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
        Accept: 'application/json, text/plain, */*',
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Requested-With': 'XMLHttpRequest',
      },
      body: 'grant_type=client_credentials&scope=read+write',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; scope: string };
    expect(body.scope).toBe('read write');
    expect((await t.request('/units', { headers: bearer(body.access_token) })).status).toBe(200);
  });
});

/** A value for a filter parameter, by kind: each is accepted by the service. */
const FILTER_VALUES: Record<Filter['kind'], string> = {
  equals: 'CUST-00001',
  integer: '1',
  flag: '1',
  gtin: '5400000000000',
  relatedReference: 'SUP-0001',
  after: '2020-01-01T00:00:00+00:00',
};

describe.each(providers)('the document tells the truth on %s', (provider) => {
  let env: GraphQLTestEnv;
  let t: TestApp;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    t = env.t;
  });
  afterAll(async () => env?.database.cleanup());

  /** Sends a request and checks that the operation documents its status and that the body matches. */
  async function conforming(method: string, path: string, url: string, init: RequestInit = {}) {
    const res = await t.request(url, { method, ...init });
    const response = documentedResponse(method, path, res.status);
    const text = await res.text();
    expect(
      response,
      `${method} ${url} answered ${res.status}, which ${method} ${path} does not document: ${text.slice(0, 300)}`,
    ).toBeDefined();
    const body = text ? JSON.parse(text) : undefined;
    if (response!.content === undefined) {
      expect(text, `${method} ${url} ${res.status} documents no body`).toBe('');
    } else {
      const schema = response!.content['application/json']?.schema;
      expect(schema, `${method} ${path} ${res.status} has no JSON schema`).toBeDefined();
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(schemas.check(schema!, body), `${method} ${url} ${res.status}: ${text.slice(0, 500)}`).toBeUndefined();
    }
    for (const [name, header] of Object.entries(response!.headers ?? {})) {
      const required = (
        '$ref' in header && header.$ref
          ? (resolvePointer(doc, header.$ref) as { required?: boolean })
          : (header as { required?: boolean })
      ).required;
      if (required) expect(res.headers.get(name), `${method} ${url} ${res.status}: header ${name}`).not.toBeNull();
    }
    return { status: res.status, body, headers: res.headers };
  }

  /** A request body, checked against the operation's request schema (it must accept it, or refuse it). */
  function requestBody(method: string, path: string, body: unknown, accepted = true) {
    const operation = (doc.paths![path] as Record<string, OperationObject>)[method.toLowerCase()]!;
    const requestBody = operation.requestBody as { content: Record<string, { schema: SchemaObject }> };
    for (const media of ['application/json', 'application/vnd.api+json']) {
      const error = schemas.check(requestBody.content[media]!.schema, body);
      if (accepted)
        expect(
          error,
          `${method} ${path}: the request schema refuses ${JSON.stringify(body).slice(0, 300)}`,
        ).toBeUndefined();
      else
        expect(
          error,
          `${method} ${path}: the request schema accepts ${JSON.stringify(body).slice(0, 300)}`,
        ).toBeDefined();
    }
    return { headers: { ...bearer(env.token), 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  }

  it('conditional requests and retries answer as documented: 304, 412, a replay, 409 and 422', async () => {
    const unitPath = '/units/{id}';
    const read = await conforming('GET', unitPath, '/units/1', { headers: bearer(env.token) });
    const tag = read.headers.get('etag')!;
    expect(read.headers.get('cache-control')).toBe('private, no-cache');
    expect(
      (await conforming('GET', unitPath, '/units/1', { headers: { ...bearer(env.token), 'If-None-Match': tag } }))
        .status,
    ).toBe(304);
    const list = await conforming('GET', '/units', '/units?per_page=2', { headers: bearer(env.token) });
    expect(
      (
        await conforming('GET', '/units', '/units?per_page=2', {
          headers: { ...bearer(env.token), 'If-None-Match': list.headers.get('etag')! },
        })
      ).status,
    ).toBe(304);
    const change = (description: string) =>
      requestBody('PATCH', unitPath, { data: { type: 'units', attributes: { description: { en: description } } } });
    const patched = await conforming('PATCH', unitPath, '/units/1', {
      ...change('first'),
      headers: { ...change('first').headers, 'If-Match': tag },
    });
    expect(patched.status).toBe(200);
    const stale = await conforming('PATCH', unitPath, '/units/1', {
      ...change('second'),
      headers: { ...change('second').headers, 'If-Match': tag },
    });
    expect(stale.body.error.code).toBe('precondition_failed');
    const add = (reference: string, key: string) => {
      const init = requestBody('POST', '/units', { data: { type: 'units', attributes: { reference } } });
      return { ...init, headers: { ...init.headers, 'Idempotency-Key': key } };
    };
    const first = await conforming('POST', '/units', '/units', add('openapi-retry', 'openapi-key'));
    expect(first.status).toBe(201);
    const replay = await conforming('POST', '/units', '/units', add('openapi-retry', 'openapi-key'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await conforming('POST', '/units', '/units', add('openapi-other', 'openapi-key'))).body.error.code).toBe(
      'idempotency_key_reused',
    );
    // The same request under another key, claimed a moment ago by a request still running.
    const { api_client_id, fingerprint } = await env.database.db.prisma.idempotencyKey.findFirstOrThrow({
      where: { key: 'openapi-key' },
    });
    await env.database.db.prisma.idempotencyKey.create({
      data: { api_client_id, key: 'openapi-running', fingerprint, state: 'running' },
    });
    const inUse = await conforming('POST', '/units', '/units', add('openapi-retry', 'openapi-running'));
    expect(inUse.body.error.code).toBe('idempotency_key_in_use');
  });

  it('the token endpoints answer as documented: tokens, refresh, every error code, revocation', async () => {
    const client = await createClient(env.database.db.prisma, 'openapi-oauth', ['read']);
    const formSchema = (path: string) =>
      (doc.paths![path]!.post!.requestBody as { content: Record<string, { schema: SchemaObject }> }).content[
        'application/x-www-form-urlencoded'
      ]!.schema;
    const basicAuth = (secret = client.client_secret) => ({ Authorization: basic(client.client_id, secret) });
    /** A form POST, answered as documented; `documented` is the form schema's objection, if any. */
    const post = async (path: string, form: Record<string, string>, headers: Record<string, string> = basicAuth()) => {
      const documented = schemas.check(formSchema(path), form);
      const answer = await conforming('POST', path, path, {
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      return { documented, ...answer };
    };
    const token = (form: Record<string, string>, headers?: Record<string, string>) =>
      post('/oauth/token.php', form, headers);

    const issued = await token({ grant_type: 'client_credentials' });
    expect([issued.status, issued.documented]).toEqual([200, undefined]);
    expect([issued.headers.get('cache-control'), issued.headers.get('pragma')]).toEqual(['no-store', 'no-cache']);
    // Client authentication in the form instead of HTTP Basic (the document's `{}` alternative).
    const inForm = await token(
      { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
      {},
    );
    expect([inForm.status, inForm.documented]).toEqual([200, undefined]);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token });
    expect([refreshed.status, refreshed.documented]).toEqual([200, undefined]);

    const errors = {
      reusedRefresh: await token({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token }),
      unsupported: await token({ grant_type: 'password' }),
      tooMuchScope: await token({ grant_type: 'client_credentials', scope: 'write' }),
      noGrantType: await token({}),
      differingCredentials: await token({ grant_type: 'client_credentials', client_id: 'someone-else' }),
      wrongSecret: await token({ grant_type: 'client_credentials' }, basicAuth('not-the-secret')),
      noCredentials: await token({ grant_type: 'client_credentials' }, {}),
    };
    expect(
      Object.fromEntries(Object.entries(errors).map(([name, res]) => [name, `${res.status} ${res.body.error}`])),
    ).toEqual({
      reusedRefresh: '400 invalid_grant',
      unsupported: '400 unsupported_grant_type',
      tooMuchScope: '400 invalid_scope',
      noGrantType: '400 invalid_request',
      differingCredentials: '400 invalid_request',
      wrongSecret: '401 invalid_client',
      noCredentials: '401 invalid_client',
    });
    expect(errors.unsupported.documented, 'the form schema names the grant types').toBeDefined();
    expect(errors.noGrantType.documented, 'the form schema requires grant_type').toBeDefined();

    // Revocation, on a grant of its own (reusing a refresh token above revoked that grant already).
    const grant = (await token({ grant_type: 'client_credentials' })).body;
    const reads = (access: string) => t.request('/units', { headers: bearer(access) }).then((res) => res.status);
    expect(await reads(grant.access_token)).toBe(200);
    const revokedAccess = await post('/oauth/revoke.php', { token: grant.access_token });
    expect([revokedAccess.status, revokedAccess.body, revokedAccess.documented]).toEqual([200, undefined, undefined]);
    expect(await reads(grant.access_token)).toBe(401);
    expect((await post('/oauth/revoke.php', { token: grant.refresh_token })).status).toBe(200);
    expect((await token({ grant_type: 'refresh_token', refresh_token: grant.refresh_token })).body.error).toBe(
      'invalid_grant',
    );
    expect((await post('/oauth/revoke.php', { token: 'mda_not-a-token', token_type_hint: 'anything' })).status).toBe(
      200,
    );
    expect((await post('/oauth/revoke.php', {})).body.error).toBe('invalid_request');
  });

  it('every read, with every include, answers as documented', async () => {
    for (const resource of resources) {
      const type = resource.type;
      const routes = REST_ROUTES.filter((r) => r.type === type && r.method === 'GET');
      const list = routes.find((r) => r.operation === 'list')!;
      const includeAll = (route: (typeof routes)[number]) => {
        const values = [...includeValues(route).keys()];
        return values.length > 0 ? `include=${values.join(',')}` : '';
      };
      const page = await conforming('GET', `/${type}`, `/${type}?per_page=${MAX_PER_PAGE}&${includeAll(list)}`, {
        headers: bearer(env.token),
      });
      expect(page.status).toBe(200);
      expect(page.body.data.length, type).toBeGreaterThan(0);

      // Members with the most relationships set, and the first: nulls and filled links both seen.
      const filled = (r: any) =>
        Object.values(r.relationships as Record<string, { data: unknown }>).filter((x) =>
          Array.isArray(x.data) ? x.data.length > 0 : x.data !== null,
        ).length;
      const ids = [
        ...new Set([page.body.data[0].id, [...page.body.data].sort((a: any, b: any) => filled(b) - filled(a))[0].id]),
      ];
      for (const route of routes.filter((r) => r.operation !== 'list')) {
        for (const id of ids) {
          const path = openApiPath(route.path);
          const include = includeAll(route);
          const res = await conforming(
            'GET',
            path,
            `${route.path.replace(':id', String(id))}${include ? `?${include}` : ''}`,
            { headers: bearer(env.token) },
          );
          expect(res.status, `${path} ${id}`).toBe(200);
        }
      }
      for (const [name, filter] of Object.entries(resource.filters)) {
        const res = await conforming(
          'GET',
          `/${type}`,
          `/${type}?${encodeURIComponent(name)}=${encodeURIComponent(FILTER_VALUES[filter.kind])}`,
          { headers: bearer(env.token) },
        );
        expect(res.status, `${type} ${name}`).toBe(200);
      }
      expect(
        (await conforming('GET', `/${type}`, `/${type}?page=100000`, { headers: bearer(env.token) })).body.data,
      ).toEqual([]);
    }
  });

  it('GET /changes answers as documented: pages of every kind of entry, 304, 400, 401, 410', async () => {
    const auth = { headers: bearer(env.token) };
    // One of each: created, updated, deleted (an item replaced), on several types.
    const product = (await t.request('/products?per_page=1', auth).then((r) => r.json())).data[0];
    await t.request(`/products/${product.id}`, {
      method: 'PATCH',
      ...requestBody('PATCH', '/products/{id}', { data: { type: 'products', attributes: { nlc: 7.25 } } }),
    });
    const structure = (await t.request('/product_structures?per_page=1&include=items', auth).then((r) => r.json()))
      .data[0];
    await t.request(`/product_structures/${structure.id}/relationships/items`, {
      method: 'PATCH',
      headers: { ...bearer(env.token), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        data: [
          {
            type: 'product_structure_items',
            attributes: { net_quantity: 1 },
            relationships: { product: { data: { type: 'products', id: product.id } } },
          },
        ],
      }),
    });
    const page = await conforming('GET', CHANGES_PATH, `${CHANGES_PATH}?per_page=${MAX_CHANGES_PER_PAGE}`, auth);
    expect(page.status).toBe(200);
    const ops = new Set(page.body.data.map((c: any) => c.attributes.op));
    expect([...ops].sort()).toEqual(['created', 'deleted', 'updated']);
    const tail = await conforming('GET', CHANGES_PATH, `${CHANGES_PATH}?after=${page.body.meta.cursor}`, auth);
    expect(tail.body.data).toEqual([]);
    const held = { headers: { ...bearer(env.token), 'If-None-Match': tail.headers.get('etag')! } };
    expect((await conforming('GET', CHANGES_PATH, `${CHANGES_PATH}?after=${page.body.meta.cursor}`, held)).status).toBe(
      304,
    );
    expect((await conforming('GET', CHANGES_PATH, `${CHANGES_PATH}?type=nope`, auth)).status).toBe(400);
    expect((await conforming('GET', CHANGES_PATH, CHANGES_PATH)).status).toBe(401);
    expect((await conforming('GET', CHANGES_PATH, `${CHANGES_PATH}?after=2000000000`, auth)).status).toBe(410);
  });

  it('every operation answers its errors as documented: no token, read-only token, bad parameter, missing resource, no JSON body', async () => {
    const readOnly = env.readToken;
    for (const route of REST_ROUTES) {
      const path = openApiPath(route.path);
      const url = route.path.replace(':id', '1');
      const reading = route.method === 'GET';

      const anonymous = await conforming(route.method, path, url);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="master-data"/);
      expect((await conforming(route.method, path, url, { headers: { Authorization: 'Bearer' } })).status).toBe(400);
      expect((await conforming(route.method, path, url, { headers: bearer('mda_unknown') })).status).toBe(401);
      if (!reading) expect((await conforming(route.method, path, url, { headers: bearer(readOnly) })).status).toBe(403);
      if (route.refused) {
        const refused = await conforming(route.method, path, url, { headers: bearer(env.token) });
        expect(refused.status).toBe(403);
        expect(refused.body.error.code).toBe('forbidden');
        continue;
      }
      expect((await conforming(route.method, path, `${url}?unknown=1`, { headers: bearer(env.token) })).status).toBe(
        400,
      );
      if (route.path.includes(':id')) {
        const missing = await conforming(route.method, path, route.path.replace(':id', '987654321'), {
          headers: { ...bearer(env.token), 'Content-Type': 'application/json' },
          body: reading ? undefined : JSON.stringify({ data: route.operation === 'rel-set' ? null : [] }),
        });
        // A relationship write may check its body before the resource: 400 is documented too.
        expect([404, 400, 409], `${route.method} ${path}`).toContain(missing.status);
      }
      if (!reading) {
        const plain = await conforming(route.method, path, url, {
          headers: { ...bearer(env.token), 'Content-Type': 'text/plain' },
          body: 'hello',
        });
        expect(plain.status).toBe(415);
        const broken = await conforming(route.method, path, url, {
          headers: { ...bearer(env.token), 'Content-Type': 'application/json' },
          body: '{"data":',
        });
        expect(broken.status).toBe(400);
        expect(broken.body.error.code).toBe('invalid_json');
      }
    }
  });

  it('writes: the request schemas take what the service takes, and the answers are as documented', async () => {
    const tag = provider === 'sqlite' ? 'S' : 'P';
    // ADD, then UPDATE with the document read back unchanged (dates and links included).
    const unitBody = {
      data: { type: 'units', attributes: { reference: `OA-${tag}-1`, description: { en: 'Crate', nl: null } } },
    };
    const unit = await conforming('POST', '/units', '/units', requestBody('POST', '/units', unitBody));
    expect(unit.status).toBe(201);
    expect(unit.headers.get('location')).toBe(`http://localhost/units/${unit.body.data.id}`);
    const unitPath = `/units/${unit.body.data.id}`;
    expect(
      (
        await conforming(
          'PATCH',
          '/units/{id}',
          unitPath,
          requestBody('PATCH', '/units/{id}', { data: unit.body.data }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await conforming(
          'PUT',
          '/units/{id}',
          unitPath,
          requestBody('PUT', '/units/{id}', {
            data: { type: 'units', id: String(unit.body.data.id), attributes: { description: { fr: 'Caisse' } } },
          }),
        )
      ).status,
    ).toBe(200);
    // A duplicate reference, a type mismatch: documented conflicts.
    expect(
      (await conforming('POST', '/units', '/units', requestBody('POST', '/units', unitBody))).body.error.code,
    ).toBe('conflict');
    expect(
      (
        await conforming(
          'PATCH',
          '/units/{id}',
          unitPath,
          requestBody('PATCH', '/units/{id}', { data: { type: 'brands' } }, false),
        )
      ).body.error.code,
    ).toBe('type_mismatch');
    // What the service refuses as unknown or missing, the schema refuses too.
    expect(
      (
        await conforming(
          'POST',
          '/units',
          '/units',
          requestBody(
            'POST',
            '/units',
            { data: { type: 'units', attributes: { reference: 'X', colour: 'red' } } },
            false,
          ),
        )
      ).body.error.code,
    ).toBe('unknown_field');
    expect(
      (
        await conforming(
          'POST',
          '/units',
          '/units',
          requestBody('POST', '/units', { data: { type: 'units', attributes: { description: { en: 'x' } } } }, false),
        )
      ).body.error.code,
    ).toBe('missing_field');

    // A customer with to-one and to-many relationships, ids as numbers and as strings, decimals as strings.
    const customerBody = {
      data: {
        type: 'customers',
        attributes: { reference: `OA-${tag}-C1`, name: 'Bakery OpenAPI', credit_limit_used: 1250.5, is_active: true },
        relationships: {
          customer_type: { data: { type: 'customer_types', id: 1 } },
          account_manager: { data: { type: 'users', id: '2' } },
          inform_on_complaint_users: {
            data: [
              { type: 'users', id: 1 },
              { type: 'users', id: 3 },
            ],
          },
        },
      },
    };
    const customer = await conforming(
      'POST',
      '/customers',
      '/customers?include=customer_type,account_manager',
      requestBody('POST', '/customers', customerBody),
    );
    expect(customer.status).toBe(201);
    expect(customer.body.data.attributes.credit_limit_used).toBe(1250.5);
    const customerPath = `/customers/${customer.body.data.id}`;
    expect(
      (
        await conforming(
          'PATCH',
          '/customers/{id}',
          customerPath,
          requestBody('PATCH', '/customers/{id}', { data: customer.body.data }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await conforming(
          'POST',
          '/customers',
          '/customers',
          requestBody(
            'POST',
            '/customers',
            { data: { type: 'customers', attributes: { reference: `OA-${tag}-C2` } } },
            false,
          ),
        )
      ).body.error.code,
    ).toBe('missing_field');
    const members = `${customerPath}/relationships/inform_on_complaint_users`;
    const membersPath = '/customers/{id}/relationships/inform_on_complaint_users';
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      const res = await conforming(
        method,
        membersPath,
        members,
        requestBody(method, membersPath, { data: [{ type: 'users', id: 2 }] }),
      );
      expect(res.status, method).toBe(200);
    }
    const typePath = '/customers/{id}/relationships/customer_type';
    expect(
      (
        await conforming(
          'PATCH',
          typePath,
          `${customerPath}/relationships/customer_type`,
          requestBody('PATCH', typePath, { data: { type: 'customer_types', id: 2 } }),
        )
      ).status,
    ).toBe(200);

    // A product, its brand removed and set, its structure with items, items added, replaced and removed.
    const productBody = {
      data: {
        type: 'products',
        attributes: {
          reference: `OA-${tag}-P1`,
          name: { en: 'Oat bar' },
          consumer_price: 2.49,
          shelf_life: { value: 30, interval: 'Days' },
        },
        relationships: { unit: { data: { type: 'units', id: 1 } } },
      },
    };
    const product = await conforming('POST', '/products', '/products', requestBody('POST', '/products', productBody));
    expect(product.status).toBe(201);
    const productId = product.body.data.id as number;
    const brandPath = '/products/{id}/relationships/brand';
    for (const data of [null, { id: null }, { type: 'brands', id: 1 }]) {
      expect(
        (
          await conforming(
            'PATCH',
            brandPath,
            `/products/${productId}/relationships/brand`,
            requestBody('PATCH', brandPath, { data }),
          )
        ).status,
      ).toBe(200);
    }
    const item = (productRef: number, net: number) => ({
      type: 'product_structure_items',
      attributes: { net_quantity: net, loss_percentage: 2 },
      relationships: {
        product: { data: { type: 'products', id: productRef } },
        unit: { data: { type: 'units', id: 1 } },
      },
    });
    const structurePath = '/products/{id}/product_structure';
    const structure = await conforming(
      'POST',
      structurePath,
      `/products/${productId}/product_structure`,
      requestBody('POST', structurePath, {
        data: {
          type: 'product_structures',
          attributes: { quantity: 10 },
          relationships: { items: { data: [item(1, 4.5)] } },
        },
      }),
    );
    expect(structure.status).toBe(201);
    expect(structure.body.included).toHaveLength(1);
    const structureId = structure.body.data.id as number;
    const again = await conforming(
      'POST',
      structurePath,
      `/products/${productId}/product_structure`,
      requestBody('POST', structurePath, { data: { type: 'product_structures', attributes: { quantity: 1 } } }),
    );
    expect(again.body.error.code).toBe('conflict');
    const itemsPath = '/product_structures/{id}/items';
    const added = await conforming(
      'POST',
      itemsPath,
      `/product_structures/${structureId}/items`,
      requestBody('POST', itemsPath, { data: [item(2, 1), item(3, 0.25)] }),
    );
    expect(added.status).toBe(201);
    expect(added.body.data).toHaveLength(3);
    const cycle = await conforming(
      'POST',
      itemsPath,
      `/product_structures/${structureId}/items`,
      requestBody('POST', itemsPath, { data: [item(productId, 1)] }),
    );
    expect(cycle.body.error.code).toBe('bom_cycle');
    const relItems = '/product_structures/{id}/relationships/items';
    const replaced = await conforming(
      'PATCH',
      relItems,
      `/product_structures/${structureId}/relationships/items`,
      requestBody('PATCH', relItems, { data: [item(4, 2), item(5, 3)] }),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body.included).toHaveLength(2);
    const removed = await conforming(
      'DELETE',
      relItems,
      `/product_structures/${structureId}/relationships/items`,
      requestBody('DELETE', relItems, { data: [replaced.body.data[0]] }),
    );
    expect(removed.status).toBe(200);
    expect(removed.body.data).toHaveLength(1);
    const structureUpdate = '/product_structures/{id}';
    const read = await conforming('GET', structureUpdate, `/product_structures/${structureId}`, {
      headers: bearer(env.token),
    });
    expect(
      (
        await conforming(
          'PATCH',
          structureUpdate,
          `/product_structures/${structureId}`,
          requestBody('PATCH', structureUpdate, { data: read.body.data }),
        )
      ).status,
    ).toBe(200);
  });
});

describe.skipIf(skipWithoutBrowser('the API reference browser tests'))('the API reference in a browser', () => {
  let database: MigratedDatabase | undefined;
  let service: RunningService | undefined;
  let browser: Browser | undefined;
  /** A client of our own, for the tokens the tests get. */
  let client: { client_id: string; client_secret: string };

  beforeAll(async () => {
    // The embedded default (demo data on) over a database that holds master data already: no
    // seeding at start; the demo client is there as a first start leaves it.
    database = await migratedDatabase('sqlite');
    await database.db.prisma.unit.create({ data: { reference: 'KG' } });
    await createClient(database.db.prisma, DEMO_CLIENT_NAME, ['read', 'write']);
    client = await createClient(database.db.prisma, 'docs', ['read']);
    service = await startService({ DATABASE_URL: database.target.url, BASE_PATH: '/masterdata' });
    expect(service.baseUrl).toMatch(/\/masterdata$/);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    try {
      await browser?.close();
      if (service) expect((await service.stop()).code).toBe(0);
    } finally {
      await database?.cleanup();
    }
  });

  /** The page at `base`/docs, rendered; what it did wrong and what it asked for, collected. */
  async function openDocs(base: string) {
    const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`${base}/docs`, { timeout: 30_000 });
    await page.locator('.info .title').getByText(API_TITLE).waitFor({ timeout: 45_000 });
    expect(await page.title()).toBe(API_TITLE);
    return { page, problems, requests };
  }

  /** Opens listUnits and its "Try it out". */
  async function tryListUnits(page: Page) {
    await page.locator('#operations-tag-units').click();
    await page.locator('#operations-units-listUnits .opblock-summary').click();
    await page.getByRole('button', { name: 'Try it out' }).click();
  }

  /** Executes the operation tried out: the Authorization it sent and its answer's status. */
  async function execute(page: Page) {
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === '/masterdata/units', { timeout: 15_000 });
    await page.getByRole('button', { name: 'Execute' }).click();
    const request = await sent;
    const status = (await request.response())?.status();
    await page
      .locator('.live-responses-table .response-col_status')
      .getByText(String(status))
      .first()
      .waitFor({ timeout: 15_000 });
    return { authorization: request.headers().authorization, status };
  }

  /** The Authorize dialog's section of a scheme, by the text of its heading. */
  const scheme = (page: Page, heading: string) => page.locator('.auth-container').filter({ hasText: heading });

  it('opens authorized with the demo token on loopback; Authorize takes another bearer token, or gets one with the client credentials flow; "Try it out" calls the API under the base path with each', async () => {
    const tokenResponse = await fetch(`${service!.baseUrl}/oauth/token.php`, {
      method: 'POST',
      headers: { Authorization: basic(client.client_id, client.client_secret) },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(tokenResponse.status).toBe(200);
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;

    const { page, problems, requests } = await openDocs(service!.baseUrl);
    // How to get a token comes first.
    expect(await page.locator('.opblock-tag-section h3').first().getAttribute('data-tag')).toBe('oauth');
    // The page carries the demo client's token (a browser on this machine), and applies it.
    const given = await page.locator('meta[name="access-token"]').getAttribute('content');
    expect(given).toMatch(/^mda_/);
    await tryListUnits(page);
    expect(await execute(page)).toEqual({ authorization: `Bearer ${given}`, status: 200 });

    const authorize = () =>
      page
        .locator('.auth-wrapper')
        .getByRole('button', { name: /Authorize/ })
        .click();
    const close = () => page.locator('.modal-ux').getByRole('button', { name: 'Close' }).first().click();
    // The dialog has the token endpoints' Basic scheme and the client credentials flow too: the bearer one.
    await authorize();
    const bearerScheme = scheme(page, 'bearerAuth');
    await bearerScheme.getByRole('button', { name: 'Remove authorization' }).click();
    await bearerScheme.locator('#auth-bearer-value').fill(token);
    await bearerScheme.getByRole('button', { name: 'Apply credentials' }).click();
    await close();
    expect(await execute(page)).toEqual({ authorization: `Bearer ${token}`, status: 200 });

    // Then without it, a token from a client id and secret, at the token endpoint under the base path.
    await authorize();
    await bearerScheme.getByRole('button', { name: 'Remove authorization' }).click();
    const flow = scheme(page, 'OAuth2, clientCredentials');
    await flow.locator('#client_id_clientCredentials').fill(client.client_id);
    await flow.locator('#client_secret_clientCredentials').fill(client.client_secret);
    const granted = page.waitForResponse((r) => new URL(r.url()).pathname === '/masterdata/oauth/token.php', {
      timeout: 15_000,
    });
    await flow.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click();
    const grant = await granted;
    expect(grant.status()).toBe(200);
    const { access_token } = (await grant.json()) as { access_token: string };
    await flow.getByRole('button', { name: 'Remove authorization' }).waitFor({ timeout: 10_000 });
    await close();
    expect(await execute(page)).toEqual({ authorization: `Bearer ${access_token}`, status: 200 });

    await page.screenshot({ path: '/tmp/openapi-docs.png' });
    expect(problems).toEqual([]);
    // Everything came from the service itself: no CDN.
    expect(requests.filter((url) => !url.startsWith(`${service!.baseUrl}/`) && !/^(blob|data):/.test(url))).toEqual([]);
    expect(requests).toContain(`${service!.baseUrl}/openapi.json`);
  }, 120_000);
});
