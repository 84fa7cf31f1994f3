/**
 * The OpenAPI 3.1 document of the REST compatibility layer, generated from the route table the
 * app registers (./routes.ts) and the resource registry, so the two cannot disagree: every route
 * with its path parameter, the query parameters it takes (./query.ts), its request document
 * (./body.ts and the write rules of ../data/writes.ts), its answers (./documents.ts, ./api.ts)
 * and its errors. Built once: nothing in it changes at run time. Its parts, by what they
 * describe: ./openapi/schemas.ts, parameters.ts, responses.ts, operations.ts, security.ts,
 * changes.ts, atomic.ts, webhooks.ts, change-requests.ts.
 *
 * Dependency: openapi3-ts, the OpenAPI 3.1 object model as TypeScript types with a small
 * builder. A misspelt keyword or a member in the wrong place is then a compile error here, not
 * a document that validators and Swagger UI reject or silently ignore; it has no runtime cost
 * beyond the builder.
 */
import { readFileSync } from 'node:fs';
import { OpenApiBuilder, type OpenAPIObject } from 'openapi3-ts/oas31';
import { OAUTH_TAG, oauthPaths } from '../auth/openapi.ts';
import { resources } from '../resources/registry.ts';
import { CHANGES_PATH } from './changes.ts';
import { CHANGES_TAG, changesPath, changesSchemas } from './openapi/changes.ts';
import { ATOMIC_TAG, atomicPath } from './openapi/atomic.ts';
import { WEBHOOKS_TAG, webhookPaths, webhookSchemas } from './openapi/webhooks.ts';
import { CHANGE_REQUESTS_TAG, changeRequestPaths, changeRequestSchemas } from './openapi/change-requests.ts';
import { API_TITLE, ATOM_EXAMPLE, responseRef, title } from './openapi/common.ts';

export { API_TITLE };
import { operationOf } from './openapi/operations.ts';
import { ID_PARAMETER, PARAMETERS } from './openapi/parameters.ts';
import { ERROR_RESPONSES, errorSchemas, RESPONSE_HEADERS } from './openapi/responses.ts';
import { resourceSchemas, valueSchemas } from './openapi/schemas.ts';
import { SECURITY, securitySchemes } from './openapi/security.ts';
import { REST_ROUTES } from './routes.ts';
import { projectPath } from '../project.ts';

/** `/customers/:id` -> `/customers/{id}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

const DESCRIPTION = `The REST compatibility layer of the master-data gateway: the old JSON:API-style interface (customers, products, bills of material, suppliers and their lookups), on the same paths.

## Authentication

Every operation needs an OAuth 2.0 access token: \`Authorization: Bearer <access_token>\`. Get one from the token endpoint \`POST oauth/token.php\` (the \`oauth\` operations below; relative to this service's base URL; \`application/x-www-form-urlencoded\`, client authentication with HTTP Basic):

    curl -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials <base URL>/oauth/token.php

and refresh it with \`grant_type=refresh_token&refresh_token=...\` when an operation answers 401 \`invalid_token\`. Tokens with the \`read\` scope may read (GET); every other method needs \`write\` (else 403 \`insufficient_scope\`). Here, **Authorize** takes an access token (\`bearerAuth\`), or gets one from a client id and secret (\`oauth2\`, the client credentials grant).

## Documents

Resource objects \`{type, id, attributes, relationships, links}\` with every attribute and every relationship; localized text is always \`{nl, fr, en, de}\`; numbers are JSON numbers and decimals round-trip exactly; date-times are ATOM (\`${ATOM_EXAMPLE}\`), set by the server. Responses are \`application/json; charset=utf-8\`; request bodies \`application/json\` or \`application/vnd.api+json\`. Every write is one transaction.

## Versions, conditional requests, safe retries

Every resource object carries \`meta.version\` (an extension of the old interface): 1 when added, one more with every write that changes its document; a write that changes nothing (a GET document sent back) keeps it, and its \`modified_date\`.

Every GET answer has a strong \`ETag\` and \`Cache-Control: private, no-cache\`; send the tag back in \`If-None-Match\` and, while nothing changed, the answer is 304 without a body. Writes to a resource and to its relationship paths take \`If-Match\` with the tag its GET (without \`include\`) answered: when someone else changed the resource in between, 412 \`precondition_failed\` and nothing is written, so two clients can never overwrite each other unknowingly:

    curl -si -H "Authorization: Bearer $TOKEN" <base URL>/products/12 | grep -i etag      # ETag: "3-5d41402a"
    curl -s -X PATCH -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -H 'If-Match: "3-5d41402a"' \\
         -d '{"data":{"type":"products","attributes":{"consumer_price":2.59}}}' <base URL>/products/12

Several writes as one, all or nothing: \`POST /operations\` (JSON:API Atomic Operations, with \`lid\`s for resources added in the same request).

A POST (ADD, REL-ADD, structures and items, atomic operations) with \`Idempotency-Key: <your key>\` runs once: a retry with the same key and request within 24 hours gets the first answer again with \`Idempotent-Replayed: true\` (422 \`idempotency_key_reused\` for another request, 409 \`idempotency_key_in_use\` while the first still runs).

## Delta sync (extension)

Every LIST and GET answer carries \`meta.changes_cursor\`: the position of the change log when the read was taken. Read everything once, then follow \`GET /changes?after=<that cursor>\`: each entry is one resource a committed write changed (\`created\`, \`updated\` with the fields before and after, \`deleted\` for structure items removed), in commit order, at least once. Entity tags leave \`changes_cursor\` out: a write elsewhere does not make a tag stale.

## Errors

Shape A for 404: \`{"errors": {"status": 404, "detail": "customers 42 not found"}}\`. Shape B for every other 4xx and for 5xx: \`{"error": {"code": "invalid_attribute", "http_code": 400, "message": "..."}}\`. A method a path does not take is 405 \`method_not_allowed\` with \`Allow\` (not listed per operation). Authentication errors are RFC 6750's \`{"error": "invalid_token", "error_description": "..."}\` with \`WWW-Authenticate\`.`;

function build(basePath: string): OpenAPIObject {
  const builder = OpenApiBuilder.create({
    openapi: '3.1.0',
    info: { title: API_TITLE, version: version(), description: DESCRIPTION },
    // `servers` names the base path the routes are under (`BASE_PATH`), so that the API
    // reference's "Try it out" reaches them.
    servers: [{ url: basePath || '/', description: 'this service' }],
    security: SECURITY,
    paths: {},
  });
  for (const [name, scheme] of Object.entries(securitySchemes(basePath))) builder.addSecurityScheme(name, scheme);
  for (const [name, parameter] of Object.entries(PARAMETERS)) builder.addParameter(name, parameter);
  for (const [name, header] of Object.entries(RESPONSE_HEADERS)) builder.addHeader(name, header);
  for (const [name, schema] of Object.entries({
    ...valueSchemas(),
    ...errorSchemas(),
    ...changesSchemas(),
    ...webhookSchemas(),
    ...changeRequestSchemas(),
  }))
    builder.addSchema(name, schema);
  // How to get a token comes first: every operation after it needs one.
  builder.addTag(OAUTH_TAG);
  for (const resource of resources) {
    builder.addTag({ name: resource.type, description: `${title(resource.type)} (type \`${resource.type}\`)` });
    for (const [name, schema] of Object.entries(resourceSchemas(resource))) builder.addSchema(name, schema);
  }
  for (const [name, response] of Object.entries(ERROR_RESPONSES)) builder.addResponse(name, response);

  for (const [path, item] of Object.entries(oauthPaths(responseRef))) builder.addPath(path, item);
  for (const route of REST_ROUTES) {
    const path = openApiPath(route.path);
    // The path parameter inline: Swagger UI leaves a path-level $ref parameter unresolved.
    const item = builder.rootDoc.paths?.[path] ?? (route.path.includes(':id') ? { parameters: [ID_PARAMETER] } : {});
    builder.addPath(path, { ...item, [route.method.toLowerCase()]: operationOf(route) });
  }
  builder.addTag(CHANGES_TAG);
  builder.addPath(CHANGES_PATH, changesPath());
  builder.addTag(ATOMIC_TAG);
  builder.addPath('/operations', atomicPath());
  builder.addTag(WEBHOOKS_TAG);
  for (const [path, item] of Object.entries(webhookPaths())) builder.addPath(path, item);
  builder.addTag(CHANGE_REQUESTS_TAG);
  for (const [path, item] of Object.entries(changeRequestPaths())) builder.addPath(path, item);
  return builder.getSpec();
}

/** Per base path (a service has one; tests build a few), built once: nothing in it changes at run time. */
const built = new Map<string, OpenAPIObject>();

/** The document of the routes under `basePath` (`BASE_PATH`). */
export function openApiDocument(basePath = ''): OpenAPIObject {
  let document = built.get(basePath);
  if (!document) built.set(basePath, (document = build(basePath)));
  return document;
}
