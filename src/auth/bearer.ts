/**
 * Bearer protection (RFC 6750), deny by default: every route needs a valid access token except
 * those declared open here. Unknown paths are protected too, so a missing token is a 401 before
 * anything else is revealed.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { BearerAuth, TokenService } from './tokens.ts';
import { JSON_CONTENT_TYPE } from '../http/errors.ts';

interface OpenRoute {
  methods: readonly string[];
  path: string;
  when?: (c: Context) => boolean;
  /** Open only while the configuration says so (otherwise it needs a token like the API). */
  unless?: 'metrics off' | 'introspection off';
}

/**
 * Routes anyone may call. New open routes (the published schema and OpenAPI documents, the
 * GraphiQL page) are added here and nowhere else.
 */
const OPEN_ROUTES: OpenRoute[] = [
  { methods: ['GET', 'HEAD'], path: '/healthz' },
  { methods: ['GET', 'HEAD'], path: '/readyz' },
  { methods: ['GET', 'HEAD'], path: '/metrics', unless: 'metrics off' },
  // The token endpoints authenticate clients themselves (and answer 405 to other methods).
  { methods: ['*'], path: '/oauth/token.php' },
  { methods: ['*'], path: '/oauth/revoke.php' },
  // The GraphiQL page itself (the operations it sends carry a token) and the published SDL.
  { methods: ['GET', 'HEAD'], path: '/graphql', when: isGraphiQLPageRequest },
  // The SDL hands out what introspection would: an operator who turns introspection off hides it too.
  { methods: ['GET', 'HEAD'], path: '/graphql/schema.graphql', unless: 'introspection off' },
  // The REST layer's OpenAPI document and its API reference page with the page's files (src/rest/docs.ts).
  { methods: ['GET', 'HEAD'], path: '/openapi.json' },
  { methods: ['GET', 'HEAD'], path: '/docs' },
  { methods: ['GET', 'HEAD'], path: '/docs/' },
  { methods: ['GET', 'HEAD'], path: '/docs/swagger-ui.css' },
  { methods: ['GET', 'HEAD'], path: '/docs/swagger-ui-bundle.js' },
  { methods: ['GET', 'HEAD'], path: '/docs/favicon-32x32.png' },
  { methods: ['GET', 'HEAD'], path: '/docs/docs.js' },
  { methods: ['GET', 'HEAD'], path: '/docs/docs.css' },
];

/** A browser asking for the GraphiQL page: HTML preferred, and no operation in the query string. */
export function isGraphiQLPageRequest(c: Context): boolean {
  return !c.req.query('query') && /\btext\/html\b/.test(c.req.header('accept') ?? '');
}

function isOpenRoute(routes: readonly OpenRoute[], c: Context, path: string): boolean {
  const method = c.req.method;
  return routes.some(
    (r) => r.path === path && (r.methods.includes('*') || r.methods.includes(method)) && (!r.when || r.when(c)),
  );
}

export interface BearerOptions {
  basePath: string;
  /** Config.metrics: /metrics is open while it is served. */
  metrics: boolean;
  /** Config.graphqlIntrospection: the published SDL is open while introspection is. */
  introspection: boolean;
}

/**
 * `read` for reading methods, `write` for the rest. GraphQL operations are checked by operation
 * type in the GraphQL layer. Webhooks, read or written, are for writers: an endpoint is told of
 * changes, and may be pointed anywhere the service can reach.
 */
export function requiredScope(method: string, path: string): 'read' | 'write' {
  if (path === '/graphql') return 'read';
  if (path === '/webhooks' || path.startsWith('/webhooks/')) return 'write';
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

const REALM = 'Bearer realm="master-data"';
/** The media type of every REST answer (rest.md "Documents"), auth errors included. */
const JSON_TYPE = { 'Content-Type': JSON_CONTENT_TYPE };

declare module 'hono' {
  interface ContextVariableMap {
    auth: BearerAuth;
  }
}

/**
 * An RFC 6750 §3 answer: the same error in the body and in the challenge. A request that sent
 * no credentials at all gets the bare challenge (no error attribute, §3.1), with auth.md's body.
 */
function challenge(c: Context, status: 400 | 401 | 403, error: string, description: string, attributes = '') {
  return c.body(JSON.stringify({ error, error_description: description }), status, {
    ...JSON_TYPE,
    'WWW-Authenticate': `${REALM}, error="${error}", error_description="${description}"${attributes}`,
  });
}

function noCredentials(c: Context) {
  return c.body(
    JSON.stringify({
      error: 'invalid_request',
      error_description: 'an access token is required: Authorization: Bearer <token>',
    }),
    401,
    {
      ...JSON_TYPE,
      'WWW-Authenticate': REALM,
    },
  );
}

/** The token of an `Authorization: Bearer <token>` value ('' for the scheme alone), or undefined for another scheme or none. */
export function bearerToken(authorization: string): string | undefined {
  const scheme = /^Bearer(?:\s+|$)/i.exec(authorization);
  return scheme ? authorization.slice(scheme[0].length).trim() : undefined;
}

export function requireBearer(
  tokens: TokenService,
  { basePath, metrics, introspection }: BearerOptions,
): MiddlewareHandler {
  const closed = new Set([...(metrics ? [] : ['metrics off']), ...(introspection ? [] : ['introspection off'])]);
  const open = OPEN_ROUTES.filter((r) => !r.unless || !closed.has(r.unless));
  return async (c, next) => {
    const path = basePath && c.req.path.startsWith(basePath) ? c.req.path.slice(basePath.length) || '/' : c.req.path;
    if (isOpenRoute(open, c, path)) return next();
    const token = bearerToken(c.req.header('authorization') ?? '');
    if (token === undefined) return noCredentials(c);
    // RFC 6750 §3.1: a request missing a required parameter is invalid_request, 400.
    if (token === '')
      return challenge(c, 400, 'invalid_request', 'the Bearer scheme needs a token: Authorization: Bearer <token>');
    if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) return challenge(c, 401, 'invalid_token', 'malformed bearer token');
    const check = await tokens.checkAccessToken(token);
    if (!check.ok) return challenge(c, 401, 'invalid_token', check.reason);
    const scope = requiredScope(c.req.method, path);
    if (!check.auth.scopes.includes(scope)) {
      return challenge(c, 403, 'insufficient_scope', `this operation needs the ${scope} scope`, `, scope="${scope}"`);
    }
    c.set('auth', check.auth);
    return next();
  };
}
