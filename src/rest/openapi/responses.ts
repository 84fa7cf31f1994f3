/**
 * The answers of the REST API's OpenAPI document: every error code with when it is answered, the
 * error bodies, the error responses operations refer to, and the response headers (validators,
 * retries, challenges).
 */
import type { HeaderObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import type { ErrorCode } from '../../http/errors.ts';
import type { RestRoute } from '../routes.ts';
import { JSON_MEDIA, schemaRef } from './common.ts';

/** Every shape-B code, with when it is answered (typed against ErrorCode: a new code must be described here). */
const ERROR_CODES: Record<ErrorCode, string> = {
  invalid_json: 'the body is not a JSON object with a `data` member (malformed JSON, not UTF-8, wrong shape)',
  invalid_parameter: 'a query parameter that the operation does not take, is repeated, or has a malformed value',
  unknown_field: 'an attribute or relationship the type does not have',
  missing_field: 'an attribute or relationship required on ADD is missing',
  invalid_attribute: 'an attribute value of the wrong JSON type, out of range, or not storable',
  invalid_relationship: 'a malformed resource identifier, or `null` for a relationship that cannot be removed',
  type_mismatch:
    "`data.type` (or an identifier's `type`) is not the expected type, or `data.id` differs from the path id",
  conflict: 'a unique value (`reference`, `gtin`, `username`, ...) is taken, or the product already has a structure',
  bom_cycle: 'the item would make the bill of material contain itself',
  precondition_failed:
    '`If-Match` names no current entity tag of the resource: it changed since it was read (412); nothing was written',
  cursor_expired:
    'a change-log cursor that can no longer be followed (410): entries after it were purged (retention), the data was replaced, or it is not from this database; read afresh',
  history_purged:
    '`as_of` before the oldest instant the hub can answer exactly (410): its history begins there (the change log was purged, or the database did not exist); the message names that instant',
  idempotency_key_in_use:
    'a request with this `Idempotency-Key` is still running (409, with `Retry-After`), or ended without its answer being kept (409)',
  idempotency_key_reused:
    'this `Idempotency-Key` was used within 24 hours for another request (422): another method, path, query or body, or another role',
  forbidden: 'an operation the interface always refuses; the message says what to use instead',
  method_not_allowed: 'a method the path does not take (the `Allow` header lists those it does)',
  unsupported_media_type: 'a body that is not `application/json` or `application/vnd.api+json`',
  payload_too_large: 'a body over the limit (`MAX_BODY_BYTES`); the connection is closed',
  rate_limited: 'too many failed attempts (the token endpoints)',
  service_unavailable: 'the database is unavailable; retry after `Retry-After` seconds',
  internal_error: 'a bug; the answer carries no internals',
};

/**
 * Messages as the service words them, for the examples (test/rest/openapi-examples.test.ts sends
 * the request behind each and compares the answer).
 */
const ERROR_EXAMPLES: Partial<Record<ErrorCode, string>> = {
  invalid_parameter: 'per_page must be an integer from 1 to 50 (got "100")',
  invalid_json: 'the body is not valid JSON: Unexpected end of JSON input',
  // One example serves the 403 of every write: that of an operation refused whatever is sent (POST /product_structures).
  forbidden:
    'a product structure is added through its product (POST /products/{id}/product_structure, or createProductStructure in GraphQL)',
  conflict: 'reference must be unique among customers: another one already has this value',
  type_mismatch: 'data.type must be customers (got "products")',
  bom_cycle: 'items[0].product: products 401 cannot be an item of its own structure',
  method_not_allowed: 'DELETE is not allowed on /customers/1; allowed: GET, HEAD, PATCH, PUT',
  unsupported_media_type: 'the body must be application/json or application/vnd.api+json (got "text/plain")',
  payload_too_large: 'the request body exceeds 1048576 bytes',
  service_unavailable: 'the database is unavailable; retry later',
  cursor_expired:
    'cursor 1200 has expired: entries after it are no longer kept (the log starts after 5400); read the data afresh and follow the cursor of that read',
  precondition_failed:
    'customers 1 is at version 2, not version 1: it changed since it was read; read it again and reapply the change',
  idempotency_key_reused:
    'Idempotency-Key "order-4711" was used for another request (method, path, query or body, or under another role) within 24 hours: use a new key',
};

const BEARER_ERRORS = {
  invalid_request: 'no access token (401), or `Authorization: Bearer` with nothing after it (400)',
  invalid_token: 'an unknown, malformed, expired or revoked access token: refresh it',
  insufficient_scope: 'the token lacks the scope the operation needs (`read` for GET, `write` for the rest)',
} as const;
export type BearerCode = keyof typeof BEARER_ERRORS;

/**
 * The bearer errors' descriptions as src/auth/bearer.ts words them: `invalid_request` is 401
 * without a token, 400 with an empty one.
 */
function bearerDescription(status: number, code: BearerCode, scope: 'read' | 'write'): string {
  if (code === 'insufficient_scope') return `this operation needs the ${scope} scope`;
  if (code === 'invalid_token') return 'the access token has expired';
  return status === 400
    ? 'the Bearer scheme needs a token: Authorization: Bearer <token>'
    : 'an access token is required: Authorization: Bearer <token>';
}

/** The error bodies: shape A (404), shape B (every other error) and RFC 6750's bearer errors. */
export function errorSchemas(): Record<string, SchemaObject> {
  return {
    ErrorA: {
      type: 'object',
      description: 'Shape A, the answer for 404: `detail` names what was not found.',
      required: ['errors'],
      properties: {
        errors: {
          type: 'object',
          required: ['status', 'detail'],
          properties: {
            status: { type: 'integer', const: 404 },
            detail: { type: 'string', examples: ['customers 42 not found'] },
          },
        },
      },
    },
    ErrorB: {
      type: 'object',
      description: `Shape B, for every other 4xx and for 5xx. Codes:\n\n${Object.entries(ERROR_CODES)
        .map(([code, when]) => `- \`${code}\`: ${when}`)
        .join('\n')}`,
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'http_code', 'message'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_CODES) },
            http_code: { type: 'integer', description: 'The HTTP status.' },
            message: { type: 'string', description: 'What went wrong, naming the field or parameter.' },
          },
        },
      },
    },
    BearerError: {
      type: 'object',
      description: `An authentication error (RFC 6750), the same error as in \`WWW-Authenticate\`:\n\n${Object.entries(
        BEARER_ERRORS,
      )
        .map(([code, when]) => `- \`${code}\`: ${when}`)
        .join('\n')}`,
      required: ['error', 'error_description'],
      properties: {
        error: { type: 'string', enum: Object.keys(BEARER_ERRORS) },
        error_description: { type: 'string' },
      },
    },
  };
}

/**
 * An error answer: shape B with the given codes, and/or a bearer error with the given codes
 * (`scope`: the one the operations answering it need, for `insufficient_scope`).
 */
function errorResponse(
  status: number,
  description: string,
  codes: readonly ErrorCode[],
  bearer: readonly BearerCode[] = [],
  scope: 'read' | 'write' = 'write',
): ResponseObject {
  const shapeB: SchemaObject = {
    type: 'object',
    allOf: [schemaRef('ErrorB')],
    properties: {
      error: {
        type: 'object',
        properties: { code: { type: 'string', enum: [...codes] }, http_code: { type: 'integer', const: status } },
      },
    },
  };
  const bearerError: SchemaObject = {
    type: 'object',
    allOf: [schemaRef('BearerError')],
    properties: { error: { type: 'string', enum: [...bearer] } },
  };
  const schema: SchemaObject =
    codes.length === 0 ? bearerError : bearer.length === 0 ? shapeB : { oneOf: [shapeB, bearerError] };
  // Swagger UI would draw every example with the base schema's first code: show this answer's own,
  // one of each shape when it has both (a 403 is `forbidden` or a token without the scope).
  const examples: Record<string, { summary: string; value: unknown }> = {};
  if (codes.length > 0) {
    const message = ERROR_EXAMPLES[codes[0]!] ?? ERROR_CODES[codes[0]!];
    examples[codes[0]!] = { summary: codes[0]!, value: { error: { code: codes[0], http_code: status, message } } };
  }
  if (bearer.length > 0)
    examples[bearer[0]!] = {
      summary: `${bearer[0]} (bearer)`,
      value: { error: bearer[0], error_description: bearerDescription(status, bearer[0]!, scope) },
    };
  const shown = Object.values(examples);
  const headers: ResponseObject['headers'] = {};
  if (status === 401) headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
  if (status === 403 && bearer.length > 0)
    headers['WWW-Authenticate'] = {
      description:
        'With `insufficient_scope`: `Bearer realm="master-data", error="insufficient_scope", ..., scope="write"`.',
      schema: { type: 'string' },
    };
  if (codes.includes('service_unavailable') || codes.includes('idempotency_key_in_use'))
    headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
  if (codes.includes('method_not_allowed')) headers.Allow = { $ref: '#/components/headers/Allow' };
  const lines = [
    ...codes.map((c) => `\`${c}\`: ${ERROR_CODES[c]}`),
    ...bearer.map((c) => `\`${c}\` (bearer): ${BEARER_ERRORS[c]}`),
  ];
  return {
    description: `${description}\n\n${lines.map((l) => `- ${l}`).join('\n')}`,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: { [JSON_MEDIA]: { schema, ...(shown.length === 1 ? { example: shown[0]!.value } : { examples }) } },
  };
}

const BODY_CODES: readonly ErrorCode[] = [
  'invalid_json',
  'unknown_field',
  'missing_field',
  'invalid_attribute',
  'invalid_relationship',
  'invalid_parameter',
];

/**
 * The 409 answers, each also as a POST answers it, where `Idempotency-Key` adds its own 409
 * (OpenAPI has one response per status).
 */
function conflictResponses(codes: Record<string, ErrorCode[]>): Record<string, ResponseObject> {
  return Object.fromEntries(
    Object.entries(codes).flatMap(([name, list]) => [
      [name, errorResponse(409, 'Conflict (shape B).', list)],
      [
        `${name}OnPost`,
        errorResponse(409, 'Conflict (shape B); `Retry-After` when the same `Idempotency-Key` is still running.', [
          ...list,
          'idempotency_key_in_use',
        ]),
      ],
    ]),
  );
}

/** The error answers, each once in components; operations refer to them. */
export const ERROR_RESPONSES: Record<string, ResponseObject> = {
  BadRequest: errorResponse(
    400,
    'Bad query parameters (shape B), or an empty bearer token.',
    ['invalid_parameter'],
    ['invalid_request'],
  ),
  BadToken: errorResponse(400, '`Authorization: Bearer` with no token.', [], ['invalid_request']),
  BadRequestBody: errorResponse(400, 'A bad body or query parameter (shape B), or an empty bearer token.', BODY_CODES, [
    'invalid_request',
  ]),
  Unauthorized: errorResponse(
    401,
    'No valid access token. `WWW-Authenticate: Bearer realm="master-data"` (with `error="invalid_token"` when a token was given).',
    [],
    ['invalid_request', 'invalid_token'],
  ),
  ForbiddenScope: errorResponse(403, 'The token lacks the `read` scope.', [], ['insufficient_scope'], 'read'),
  Forbidden: errorResponse(
    403,
    'Refused (shape B `forbidden`), or the token lacks the `write` scope.',
    ['forbidden'],
    ['insufficient_scope'],
  ),
  NotFound: {
    description:
      'Shape A: the resource, or a relationship target named in the body, does not exist (an id that is not a positive integer is not found either).',
    content: { [JSON_MEDIA]: { schema: schemaRef('ErrorA') } },
  },
  MethodNotAllowed: errorResponse(
    405,
    'A method the path does not take; not listed per operation: every path answers it to the methods it does not document.',
    ['method_not_allowed'],
  ),
  ...conflictResponses({
    Conflict: ['conflict', 'type_mismatch'],
    TypeMismatch: ['type_mismatch'],
    ItemsConflict: ['type_mismatch', 'bom_cycle'],
    StructureConflict: ['conflict', 'type_mismatch', 'bom_cycle'],
  }),
  NotModified: {
    description: 'The client holds the current answer (`If-None-Match` names its tag): no body.',
    headers: {
      ETag: { $ref: '#/components/headers/ETag' },
      'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
    },
  },
  PreconditionFailed: errorResponse(
    412,
    'The resource changed since the client read it: `If-Match` names no current tag of it. Nothing was written; read it again.',
    ['precondition_failed'],
  ),
  CursorExpired: errorResponse(
    410,
    'The change-log cursor can no longer be followed: read the data afresh (LIST and GET answer a new `meta.changes_cursor`) and follow that.',
    ['cursor_expired'],
  ),
  IdempotencyKeyReused: errorResponse(
    422,
    'The `Idempotency-Key` was used within 24 hours for another request. Nothing was written.',
    ['idempotency_key_reused'],
  ),
  PayloadTooLarge: errorResponse(413, 'The body is too large (shape B).', ['payload_too_large']),
  UnsupportedMediaType: errorResponse(415, 'The body is not JSON (shape B).', ['unsupported_media_type']),
  ServiceUnavailable: errorResponse(503, 'The database is unavailable (shape B); retry after `Retry-After` seconds.', [
    'service_unavailable',
  ]),
};

/** The response headers, each once in components. */
export const RESPONSE_HEADERS: Record<string, HeaderObject> = {
  Location: {
    description: 'The URL of the new resource.',
    required: true,
    schema: { type: 'string', format: 'uri' },
  },
  'WWW-Authenticate': {
    description:
      'The bearer challenge: `Bearer realm="master-data"`, with `error="invalid_token", error_description="..."` when a token was given.',
    required: true,
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 1 },
  },
  ETag: {
    description:
      "A strong entity tag of this answer; send it back in `If-None-Match` to get 304 while it holds. GET of a resource without `include` answers the resource's own tag, which `If-Match` on a write takes.",
    required: true,
    schema: { type: 'string', examples: ['"3-5d41402a"'] },
  },
  ResourceETag: {
    description:
      "The resource's own tag after the write (what its GET without `include` answers), for the next `If-Match`.",
    required: true,
    schema: { type: 'string', examples: ['"4-5d41402a"'] },
  },
  'Cache-Control': {
    description:
      '`private, no-cache`: a client may keep the answer but must revalidate it (`If-None-Match`); shared caches keep nothing.',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` on the kept answer to an earlier request with the same `Idempotency-Key`: nothing was written this time.',
    schema: { type: 'string', const: 'true' },
  },
  Allow: { description: 'The methods the path takes.', schema: { type: 'string' } },
};

/** The validators and cache rule of a success answer: every GET's, and the resource's own tag after ADD and PATCH. */
export function withValidators(route: RestRoute, response: ResponseObject): ResponseObject {
  const tagged =
    route.method === 'GET' || route.operation === 'add' || (route.operation === 'update' && route.method === 'PATCH');
  const headers: ResponseObject['headers'] = { ...response.headers };
  if (tagged)
    headers.ETag = { $ref: route.method === 'GET' ? '#/components/headers/ETag' : '#/components/headers/ResourceETag' };
  if (route.method === 'GET') headers['Cache-Control'] = { $ref: '#/components/headers/Cache-Control' };
  if (route.method === 'POST') headers['Idempotent-Replayed'] = { $ref: '#/components/headers/Idempotent-Replayed' };
  return Object.keys(headers).length > 0 ? { ...response, headers } : response;
}
