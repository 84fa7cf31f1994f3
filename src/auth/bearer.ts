/**
 * Bearer protection (RFC 6750), deny by default: every route needs a valid access token except
 * those declared open here. Unknown paths are protected too, so a missing token is a 401 before
 * anything else is revealed.
 */
import type { MiddlewareHandler } from 'hono';
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

export function requireBearer(tokens: TokenService, basePath: string): MiddlewareHandler {
  return async (c, next) => {
    const path = basePath && c.req.path.startsWith(basePath) ? c.req.path.slice(basePath.length) || '/' : c.req.path;
    if (isOpenRoute(c.req.method, path)) return next();
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(c.req.header('authorization') ?? '');
    if (!match) {
      const presented = /^Bearer\b/i.test(c.req.header('authorization') ?? '');
      if (presented) {
        return c.json({ error: 'invalid_token', error_description: 'malformed bearer token' }, 401, {
          'WWW-Authenticate': `${REALM}, error="invalid_token", error_description="malformed bearer token"`,
        });
      }
      return c.json(
        { error: 'invalid_request', error_description: 'an access token is required: Authorization: Bearer <token>' },
        401,
        { 'WWW-Authenticate': REALM },
      );
    }
    const check = await tokens.checkAccessToken(match[1]!);
    if (!check.ok) {
      return c.json({ error: 'invalid_token', error_description: check.reason }, 401, {
        'WWW-Authenticate': `${REALM}, error="invalid_token", error_description="${check.reason}"`,
      });
    }
    const scope = requiredScope(c.req.method, path);
    if (!check.auth.scopes.includes(scope)) {
      const description = `this operation needs the ${scope} scope`;
      return c.json({ error: 'insufficient_scope', error_description: description }, 403, {
        'WWW-Authenticate': `${REALM}, error="insufficient_scope", error_description="${description}", scope="${scope}"`,
      });
    }
    c.set('auth', check.auth);
    return next();
  };
}
