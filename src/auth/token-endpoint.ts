/**
 * POST /oauth/token.php (RFC 6749: client_credentials and refresh_token grants) and
 * POST /oauth/revoke.php (RFC 7009), as auth.md fixes them.
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import type { Logger } from '../observability/logger.ts';
import { FailureThrottle } from './throttle.ts';
import { OAuthError, type AuthenticatedClient, type TokenService } from './tokens.ts';

const MAX_FORM_BYTES = 16 * 1024;
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="master-data"' };

function oauthError(c: Context, error: OAuthError) {
  const headers = error.error === 'invalid_client' ? { ...NO_STORE, ...BASIC_CHALLENGE } : NO_STORE;
  return c.json({ error: error.error, error_description: error.message }, error.status, headers);
}

/** Form parameters, refusing repeats; empty values count as absent (RFC 6749 §3.1). */
async function readForm(c: Context): Promise<Map<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new OAuthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  const text = await c.req.text();
  if (text.length > MAX_FORM_BYTES) throw new OAuthError(400, 'invalid_request', 'the body is too large');
  const form = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(text)) {
    if (form.has(key)) throw new OAuthError(400, 'invalid_request', `parameter ${key} is repeated`);
    if (value !== '') form.set(key, value);
  }
  return form;
}

/** client_id and client_secret from HTTP Basic (RFC 6749 §2.3.1) and/or the form. */
function clientCredentials(c: Context, form: Map<string, string>): { id: string; secret: string } {
  let basic: { id: string; secret: string } | undefined;
  const header = c.req.header('authorization');
  if (header && /^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError(401, 'invalid_client', 'malformed Basic credentials');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        throw new OAuthError(401, 'invalid_client', 'malformed Basic credentials');
      }
    };
    basic = { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  }
  const formId = form.get('client_id');
  const formSecret = form.get('client_secret');
  if (basic && (formId !== undefined || formSecret !== undefined)) {
    if ((formId !== undefined && formId !== basic.id) || (formSecret !== undefined && formSecret !== basic.secret)) {
      throw new OAuthError(400, 'invalid_request', 'client credentials differ between the Authorization header and the body');
    }
  }
  const id = basic?.id ?? formId;
  const secret = basic?.secret ?? formSecret;
  if (!id || secret === undefined) throw new OAuthError(401, 'invalid_client', 'client authentication is required (HTTP Basic)');
  return { id, secret };
}

function remoteAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // in-memory requests (tests) have no socket
  }
}

export interface TokenEndpointOptions {
  tokens: TokenService;
  throttle: FailureThrottle;
  logger: Logger;
}

export function tokenEndpoints({ tokens, throttle, logger }: TokenEndpointOptions): Hono {
  const app = new Hono();

  /**
   * Runs a client-authenticated OAuth request with failure throttling: failed client
   * authentication and bad grants count against the address and the client id.
   */
  async function guarded(c: Context, handle: (form: Map<string, string>, client: AuthenticatedClient) => Promise<Response>) {
    let keys = [`address:${remoteAddress(c)}`];
    try {
      const form = await readForm(c);
      const credentials = clientCredentials(c, form);
      keys = [...keys, `client:${credentials.id}`];
      const retryAfter = throttle.retryAfter(keys);
      if (retryAfter > 0) {
        return c.json(
          { error: 'rate_limited', error_description: `too many failed attempts; retry in ${retryAfter} s` },
          429,
          { ...NO_STORE, 'Retry-After': String(retryAfter) },
        );
      }
      const delay = throttle.delayMs(keys);
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      const client = await tokens.authenticateClient(credentials.id, credentials.secret);
      const response = await handle(form, client);
      throttle.succeed(keys.slice(1));
      return response;
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.error === 'invalid_client' || error.error === 'invalid_grant') {
        throttle.fail(keys);
        logger.warn({ oauth_error: error.error, reason: error.message }, 'token request refused');
      }
      return oauthError(c, error);
    }
  }

  app.post('/oauth/token.php', (c) =>
    guarded(c, async (form, client) => {
      const grantType = form.get('grant_type');
      let body;
      if (grantType === undefined) throw new OAuthError(400, 'invalid_request', 'grant_type is required');
      else if (grantType === 'client_credentials') body = await tokens.clientCredentials(client, form.get('scope'));
      else if (grantType === 'refresh_token') {
        const refreshToken = form.get('refresh_token');
        if (!refreshToken) throw new OAuthError(400, 'invalid_request', 'refresh_token is required');
        body = await tokens.refresh(client, refreshToken, form.get('scope'));
      } else {
        throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials or refresh_token');
      }
      return c.json(body, 200, NO_STORE);
    }),
  );

  app.post('/oauth/revoke.php', (c) =>
    guarded(c, async (form, client) => {
      const token = form.get('token');
      if (!token) throw new OAuthError(400, 'invalid_request', 'token is required');
      await tokens.revoke(client, token);
      return c.body(null, 200, NO_STORE);
    }),
  );

  for (const path of ['/oauth/token.php', '/oauth/revoke.php']) {
    app.all(path, (c) =>
      c.json({ error: 'invalid_request', error_description: 'use POST' }, 405, { ...NO_STORE, Allow: 'POST' }),
    );
  }
  return app;
}
