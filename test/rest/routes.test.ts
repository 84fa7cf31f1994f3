/**
 * Every route the whole app serves is in the OpenAPI document or is one of the few documented
 * elsewhere (health, metrics, OAuth, GraphQL, the documents themselves): a route added without
 * being described fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/rest/openapi.ts';
import { methodsByPath } from '../../src/rest/routes.ts';
import { testApp } from '../support/app.ts';
import { migratedDatabase, type MigratedDatabase } from '../support/databases.ts';

/** Routes outside the REST layer, with where they are described. */
const DESCRIBED_ELSEWHERE = new Set([
  'GET /healthz', // docs/operations/monitoring.md
  'GET /readyz',
  'GET /metrics',
  'POST /oauth/token.php', // docs/reference/authentication.md; RFC 6749
  'POST /oauth/revoke.php', // RFC 7009
  'ALL /oauth/token.php', // 405 for other methods
  'ALL /oauth/revoke.php',
  'GET /graphql', // docs/reference/graphql.md
  'POST /graphql',
  'HEAD /graphql',
  'ALL /graphql',
  'GET /graphql/schema.graphql',
  'GET /openapi.json', // the document itself and its reference page
  'GET /docs',
]);

describe('the routes the app serves', () => {
  let database: MigratedDatabase;
  beforeAll(async () => {
    database = await migratedDatabase('sqlite');
  });
  afterAll(async () => database?.cleanup());

  it('are each in the OpenAPI document (405 answers on its paths aside) or described elsewhere', () => {
    const document = openApiDocument('');
    const documented = new Set(
      Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
        Object.keys(item as object)
          .filter((k) => ['get', 'post', 'patch', 'put', 'delete'].includes(k))
          .map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
    const documentedPaths = new Set(Object.keys(document.paths ?? {}));
    const answers405 = new Set(methodsByPath().keys());
    const served = testApp(database)
      .app.routes()
      .map((r) => `${r.method} ${r.path}`);
    expect(served.length).toBeGreaterThan(200);
    const undocumented = served.filter((route) => {
      const [method, path] = route.split(' ');
      if (path!.startsWith('/docs/')) return false; // the reference page's own files
      // Every other method on a path of the table, or on a documented path, is 405.
      if (method === 'ALL' && (answers405.has(path!) || documentedPaths.has(openApiPath(path!)))) return false;
      return !documented.has(`${method} ${openApiPath(path!)}`) && !DESCRIBED_ELSEWHERE.has(route);
    });
    expect([...new Set(undocumented)]).toEqual([]);
  });
});
