/**
 * Bearer protection (RFC 6750), deny by default: every route needs a valid access token except
 * those declared open here. Unknown paths are protected too, so a missing token is a 401 before
 * anything else is revealed.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { BearerAuth, TokenService } from './tokens.ts';

/**
 * Routes anyone may call. New open routes (the published schema and OpenAPI documents, the
 * GraphiQL page) are added here and nowhere else.
 */
const OPEN_ROUTES: { methods: readonly string[]; path: string }[] = [
  { methods: ['GET', 'HEAD'], path: '/healthz' },
  { methods: ['GET', 'HEAD'], path: '/readyz' },
  { methods: ['GET', 'HEAD'], path: '/metrics' },
  // The token endpoints authenticate clients themselves (and answer 405 to other methods).
  { methods: ['*'], path: '/oauth/token.php' },
  { methods: ['*'], path: '/oauth/revoke.php' },
];

export function isOpenRoute(method: string, path: string): boolean {
  return OPEN_ROUTES.some((r) => r.path === path && (r.methods.includes('*') || r.methods.includes(method)));
}

/** `read` for reading methods, `write` for the rest. GraphQL operations are checked by operation type in the GraphQL layer. */
export function requiredScope(method: string, path: string): 'read' | 'write' {
  if (path === '/graphql') return 'read';
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

const REALM = 'Bearer realm="master-data"';

declare module 'hono' {
  interface ContextVariableMap {
    auth: BearerAuth;
  }
}

/**
 * An RFC 6750 §3 answer: the same error in the body and in the challenge. A request without any
 * token gets the bare challenge (no error attribute, §3.1).
 */
function challenge(c: Context, status: 401 | 403, error: string, description: string, attributes = '') {
  const header = error === 'invalid_request' ? REALM : `${REALM}, error="${error}", error_description="${description}"${attributes}`;
  return c.json({ error, error_description: description }, status, { 'WWW-Authenticate': header });
}

export function requireBearer(tokens: TokenService, basePath: string): MiddlewareHandler {
  return async (c, next) => {
    const path = basePath && c.req.path.startsWith(basePath) ? c.req.path.slice(basePath.length) || '/' : c.req.path;
    if (isOpenRoute(c.req.method, path)) return next();
    const authorization = c.req.header('authorization') ?? '';
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
    if (!match) {
      return /^Bearer\b/i.test(authorization)
        ? challenge(c, 401, 'invalid_token', 'malformed bearer token')
        : challenge(c, 401, 'invalid_request', 'an access token is required: Authorization: Bearer <token>');
    }
    const check = await tokens.checkAccessToken(match[1]!);
    if (!check.ok) return challenge(c, 401, 'invalid_token', check.reason);
    const scope = requiredScope(c.req.method, path);
    if (!check.auth.scopes.includes(scope)) {
      return challenge(c, 403, 'insufficient_scope', `this operation needs the ${scope} scope`, `, scope="${scope}"`);
    }
    c.set('auth', check.auth);
    return next();
  };
}
