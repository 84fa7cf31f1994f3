/**
 * The token endpoints in the API reference (src/rest/openapi.ts adds them to the REST document):
 * what ./token-endpoint.ts accepts and answers, so that an integrator finds how to get a token
 * where the operations that need one are described.
 */
import type {
  OperationObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
  SecuritySchemeObject,
} from 'openapi3-ts/oas31';
import { SCOPES } from './scopes.ts';
import { DEFAULT_THROTTLE, MAX_DELAY_MS } from './throttle.ts';
import { BASIC_CHALLENGE, NO_STORE, REVOKE_PATH, TOKEN_PATH } from './token-endpoint.ts';
import { VALIDATION_CACHE_MS, type OAuthError } from './tokens.ts';

export const OAUTH_TAG = {
  name: 'oauth',
  description: 'OAuth 2.0: access tokens (RFC 6749) and their revocation (RFC 7009)',
};

/** Client authentication on the token endpoints: HTTP Basic, or the form's client_id and client_secret. */
export const CLIENT_BASIC_SCHEME: SecuritySchemeObject = {
  type: 'http',
  scheme: 'basic',
  description:
    'The API client: `client_id` as the user name, `client_secret` as the password (each form-encoded, RFC 6749 §2.3.1).',
};

/** Every RFC 6749 §5.2 error the endpoints answer, and when (a new code is a compile error here). */
const OAUTH_ERRORS = {
  invalid_request:
    'a required parameter is missing or repeated, the body is not `application/x-www-form-urlencoded` UTF-8 text, a value is not valid percent-encoding, or the client credentials differ between header and body',
  invalid_client:
    'unknown or revoked client, wrong secret, a malformed Basic header, or no client authentication (401, with `WWW-Authenticate: Basic`)',
  invalid_grant:
    'the refresh token is unknown, expired, revoked, issued to another client, or already used (a reused refresh token revokes every token of its grant)',
  unsupported_grant_type: 'grant_type is neither `client_credentials` nor `refresh_token`',
  invalid_scope: `scope is empty or asks for more than the client has (\`client_credentials\`) or the refresh token was granted (\`refresh_token\`); scopes: ${SCOPES.join(', ')}`,
} satisfies Record<OAuthError['error'], string>;

const NO_STORE_HEADERS: ResponseObject['headers'] = {
  'Cache-Control': {
    description: `\`${NO_STORE['Cache-Control']}\`: token answers are never cached.`,
    required: true,
    schema: { type: 'string' },
  },
  Pragma: { description: `\`${NO_STORE.Pragma}\`, for HTTP/1.0 caches.`, required: true, schema: { type: 'string' } },
};

/** The RFC 6749 §5.2 error body, with the given schema for `error`. */
function errorBody(error: SchemaObject): ResponseObject['content'] {
  return {
    'application/json': {
      schema: {
        type: 'object',
        required: ['error', 'error_description'],
        properties: { error, error_description: { type: 'string' } },
      },
    },
  };
}

const clientFields: Record<string, SchemaObject> = {
  client_id: {
    type: 'string',
    description: 'Only when the client does not authenticate with HTTP Basic; if both are given they must be equal.',
  },
  client_secret: { type: 'string', description: 'With client_id, when not using HTTP Basic.' },
};

function oauthError(status: 400 | 401, codes: readonly OAuthError['error'][]): ResponseObject {
  return {
    description: codes.map((code) => `- \`${code}\`: ${OAUTH_ERRORS[code]}`).join('\n'),
    headers: {
      ...NO_STORE_HEADERS,
      ...(status === 401
        ? {
            'WWW-Authenticate': {
              description: `\`${BASIC_CHALLENGE['WWW-Authenticate']}\``,
              required: true,
              schema: { type: 'string' },
            },
          }
        : {}),
    },
    content: errorBody({ type: 'string', enum: [...codes] }),
  };
}

/** The failure throttle of ./throttle.ts: per address, and per address and client id. */
const RATE_LIMITED: ResponseObject = {
  description: `Too many unproven attempts (failed, or still in progress) from this address, or too many failed client authentications from this address for this client id, within ${DEFAULT_THROTTLE.windowMs / 1000} seconds. Before this, failed attempts are answered more slowly (up to ${MAX_DELAY_MS} ms). Correct credentials from an address that has not misbehaved are never refused.`,
  headers: {
    ...NO_STORE_HEADERS,
    'Retry-After': { description: 'Seconds to wait.', required: true, schema: { type: 'integer', minimum: 1 } },
  },
  content: errorBody({ type: 'string', const: 'rate_limited' }),
};

const TOKEN_RESPONSE: SchemaObject = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope'],
  additionalProperties: false,
  properties: {
    access_token: { type: 'string', description: 'Send it as `Authorization: Bearer <access_token>`.' },
    token_type: { type: 'string', const: 'Bearer' },
    expires_in: { type: 'integer', minimum: 1, description: 'Seconds the access token is valid (3600 by default).' },
    refresh_token: { type: 'string', description: 'Single use: refreshing answers a new one.' },
    scope: { type: 'string', description: `The granted scopes, space-separated (${SCOPES.join(', ')}).` },
  },
};

/**
 * The token and revocation endpoints, at their paths relative to the base URL. `errorRef` names a
 * shared response of the REST document (the body-size limit and a database outage answer as
 * every route does).
 */
export function oauthPaths(
  errorRef: (name: 'PayloadTooLarge' | 'ServiceUnavailable') => ReferenceObject,
): Record<string, PathItemObject> {
  const form = (properties: Record<string, SchemaObject>, required: string[]) => ({
    required: true,
    content: {
      'application/x-www-form-urlencoded': {
        schema: { type: 'object' as const, required, properties: { ...properties, ...clientFields } },
      },
    },
  });
  const common: Pick<OperationObject, 'tags' | 'security'> = {
    tags: [OAUTH_TAG.name],
    // Client authentication, not a bearer token: Basic, or client_id and client_secret in the form.
    security: [{ clientBasic: [] }, {}],
  };
  return {
    [TOKEN_PATH]: {
      post: {
        ...common,
        operationId: 'token',
        summary: 'Get an access token',
        description:
          "An access token and a refresh token for the API client. `client_credentials` issues them; `refresh_token` exchanges a refresh token for new ones (the old one is spent; presenting it again revokes every token of its grant). Without `scope`, `client_credentials` grants the client's scopes and `refresh_token` the scope the refresh token was granted.",
        requestBody: form(
          {
            grant_type: { type: 'string', enum: ['client_credentials', 'refresh_token'] },
            refresh_token: { type: 'string', description: 'Required with grant_type=refresh_token.' },
            scope: {
              type: 'string',
              description: `Space-separated (${SCOPES.join(', ')}): a subset of the client's scopes, or of the refresh token's scope.`,
            },
          },
          ['grant_type'],
        ),
        responses: {
          '200': {
            description: 'The tokens.',
            headers: NO_STORE_HEADERS,
            content: { 'application/json': { schema: TOKEN_RESPONSE } },
          },
          '400': oauthError(400, ['invalid_request', 'invalid_grant', 'unsupported_grant_type', 'invalid_scope']),
          '401': oauthError(401, ['invalid_client']),
          '413': errorRef('PayloadTooLarge'),
          '429': RATE_LIMITED,
          '503': errorRef('ServiceUnavailable'),
        },
      },
    },
    [REVOKE_PATH]: {
      post: {
        ...common,
        operationId: 'revoke',
        summary: 'Revoke a token',
        description: `Revokes a token of this client: an access token alone, a refresh token with every token of its grant. An unknown token, or another client's, is answered the same and left alone (RFC 7009 §2.2). A revoked access token may still be accepted for up to ${VALIDATION_CACHE_MS / 1000} seconds by a replica that checked it just before.`,
        requestBody: form(
          {
            token: { type: 'string' },
            token_type_hint: {
              type: 'string',
              description: 'Accepted and ignored: the token is found whatever its type.',
            },
          },
          ['token'],
        ),
        responses: {
          '200': { description: 'Revoked, or unknown. No body.', headers: NO_STORE_HEADERS },
          '400': oauthError(400, ['invalid_request']),
          '401': oauthError(401, ['invalid_client']),
          '413': errorRef('PayloadTooLarge'),
          '429': RATE_LIMITED,
          '503': errorRef('ServiceUnavailable'),
        },
      },
    },
  };
}
