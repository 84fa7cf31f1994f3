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
 * A request refused by bearer protection (RFC 6750 §3), thrown so that each surface answers it
 * in its own shape (app.ts): REST and the other routes with RFC 6750's body, /graphql with
 * GraphQL errors; both with this status and challenge. `error` is undefined for a request that
 * sent no credentials at all: the bare challenge (no error attribute, §3.1), and auth.md's body.
 */
export class BearerRefusal extends Error {
  constructor(
    readonly status: 400 | 401 | 403,
    readonly error: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | undefined,
    readonly description: string,
    /** The scope that was missing (insufficient_scope). */
    readonly scope?: string,
  ) {
    super(description);
  }

  /** The `WWW-Authenticate` value: the same error as in the body. */
  get challenge(): string {
    if (!this.error) return REALM;
    const scope = this.scope ? `, scope="${this.scope}"` : '';
    return `${REALM}, error="${this.error}", error_description="${this.description}"${scope}`;
  }

  /** RFC 6750's answer, as every route but /graphql gives it. */
  answer(c: Context): Response {
    return c.body(
      JSON.stringify({ error: this.error ?? 'invalid_request', error_description: this.description }),
      this.status,
      { ...JSON_TYPE, 'WWW-Authenticate': this.challenge },
    );
  }
}

/** The token of an `Authorization: Bearer <token>` value ('' for the scheme alone), or undefined for another scheme or none. */
export function bearerToken(authorization: string): string | undefined {
  const scheme = /^Bearer(?:\s+|$)/i.exec(authorization);
  return scheme ? authorization.slice(scheme[0].length).trim() : undefined;
}

/**
 * The client an `Authorization` value's bearer token stands for; undefined when it names no
 * bearer token (no header, another scheme). A token that is empty, malformed or not valid is refused.
 */
export async function bearerAuth(tokens: TokenService, authorization: string): Promise<BearerAuth | undefined> {
  const token = bearerToken(authorization);
  if (token === undefined) return undefined;
  // RFC 6750 §3.1: a request missing a required parameter is invalid_request, 400.
  if (token === '')
    throw new BearerRefusal(400, 'invalid_request', 'the Bearer scheme needs a token: Authorization: Bearer <token>');
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) throw new BearerRefusal(401, 'invalid_token', 'malformed bearer token');
  const check = await tokens.checkAccessToken(token);
  if (!check.ok) throw new BearerRefusal(401, 'invalid_token', check.reason);
  return check.auth;
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
    const auth = await bearerAuth(tokens, c.req.header('authorization') ?? '');
    if (auth === undefined)
      throw new BearerRefusal(401, undefined, 'an access token is required: Authorization: Bearer <token>');
    const scope = requiredScope(c.req.method, path);
    if (!auth.scopes.includes(scope))
      throw new BearerRefusal(403, 'insufficient_scope', `this operation needs the ${scope} scope`, scope);
    c.set('auth', auth);
    return next();
  };
}
