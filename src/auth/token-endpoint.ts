/**
 * POST /oauth/token.php (RFC 6749: client_credentials and refresh_token grants) and
 * POST /oauth/revoke.php (RFC 7009), as auth.md fixes them.
 */
import { Hono, type Context } from 'hono';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { readBody } from '../http/body.ts';
import { decodeComponent, decodeUtf8 } from '../http/input.ts';
import { unstorableText } from '../db/text.ts';
import { clientAddress } from '../http/address.ts';
import type { Logger } from '../observability/logger.ts';
import type { FailureThrottle, Outcome } from './throttle.ts';
import { OAuthError, type AuthenticatedClient, type TokenResponse, type TokenService } from './tokens.ts';

/** Token requests are a few hundred bytes; more is refused while the body is read (413). */
const MAX_FORM_BYTES = 16 * 1024;
export const TOKEN_PATH = '/oauth/token.php';
export const REVOKE_PATH = '/oauth/revoke.php';
/** Headers of every answer of both endpoints (RFC 6749 §5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
/** With every invalid_client (401). */
export const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="master-data"' };

function oauthError(c: Context, error: OAuthError) {
  const headers = error.error === 'invalid_client' ? { ...NO_STORE, ...BASIC_CHALLENGE } : NO_STORE;
  return c.json({ error: error.error, error_description: error.message }, error.status, headers);
}

/** One form-encoded name or value, refused unless it decodes to storable text. */
function formText(encoded: string, what: string): string {
  const decoded = decodeComponent(encoded);
  const problem = decoded === undefined ? 'is not valid percent-encoded UTF-8' : unstorableText(decoded);
  if (problem) throw new OAuthError(400, 'invalid_request', `${what} ${problem}`);
  return decoded!;
}

/**
 * Form parameters, decoded strictly (URLSearchParams would turn malformed input into U+FFFD
 * silently), refusing repeats; empty values count as absent (RFC 6749 §3.1).
 */
async function readForm(c: Context): Promise<Map<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new OAuthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  const text = decodeUtf8(await readBody(c, MAX_FORM_BYTES));
  if (text === undefined) throw new OAuthError(400, 'invalid_request', 'the body is not valid UTF-8');
  const form = new Map<string, string>();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const key = formText(equals < 0 ? pair : pair.slice(0, equals), 'a parameter name');
    const value = equals < 0 ? '' : formText(pair.slice(equals + 1), `parameter ${key}`);
    if (form.has(key)) throw new OAuthError(400, 'invalid_request', `parameter ${key} is repeated`);
    if (value !== '') form.set(key, value);
  }
  return form;
}

/** client_id and client_secret from HTTP Basic (RFC 6749 §2.3.1: each form-encoded) and/or the form. */
function clientCredentials(c: Context, form: Map<string, string>): { id: string; secret: string } {
  let basic: { id: string; secret: string } | undefined;
  const header = c.req.header('authorization');
  if (header && /^basic /i.test(header)) {
    const decoded = decodeUtf8(Buffer.from(header.slice(6).trim(), 'base64'));
    const colon = decoded?.indexOf(':') ?? -1;
    if (decoded === undefined || colon < 0) throw new OAuthError(401, 'invalid_client', 'malformed Basic credentials');
    basic = {
      id: formText(decoded.slice(0, colon), 'client_id'),
      secret: formText(decoded.slice(colon + 1), 'client_secret'),
    };
  }
  const formId = form.get('client_id');
  const formSecret = form.get('client_secret');
  if (basic && (formId !== undefined || formSecret !== undefined)) {
    if ((formId !== undefined && formId !== basic.id) || (formSecret !== undefined && formSecret !== basic.secret)) {
      throw new OAuthError(
        400,
        'invalid_request',
        'client credentials differ between the Authorization header and the body',
      );
    }
  }
  const id = basic?.id ?? formId;
  const secret = basic?.secret ?? formSecret;
  if (!id || secret === undefined)
    throw new OAuthError(401, 'invalid_client', 'client authentication is required (HTTP Basic)');
  return { id, secret };
}

export interface TokenEndpointOptions {
  tokens: TokenService;
  throttle: FailureThrottle;
  logger: Logger;
  /** Reverse proxies whose X-Forwarded-For entries are trusted (Config.trustProxy). */
  trustProxy: number;
}

export function tokenEndpoints({ tokens, throttle, logger, trustProxy }: TokenEndpointOptions): Hono {
  const app = new Hono();

  /**
   * Runs a client-authenticated OAuth request under the failure throttle (./throttle.ts): the
   * attempt counts from its start and is settled by how client authentication went.
   */
  async function guarded(
    c: Context,
    handle: (form: Map<string, string>, client: AuthenticatedClient) => Promise<Response>,
  ) {
    let outcome: Outcome = 'failed';
    let settle: ((outcome: Outcome) => void) | undefined;
    try {
      const form = await readForm(c);
      const credentials = clientCredentials(c, form);
      const admission = throttle.begin(clientAddress(c, trustProxy), credentials.id);
      if (!admission.admitted) {
        const seconds = admission.retryAfterSeconds;
        return c.json(
          { error: 'rate_limited', error_description: `too many failed attempts; retry in ${seconds} s` },
          429,
          {
            ...NO_STORE,
            'Retry-After': String(seconds),
          },
        );
      }
      settle = admission.settle;
      if (admission.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, admission.delayMs));
      const client = await tokens.authenticateClient(credentials.id, credentials.secret);
      outcome = 'authenticated';
      return await handle(form, client);
    } catch (error) {
      if (isDatabaseUnavailable(error)) outcome = 'abandoned';
      if (!(error instanceof OAuthError)) throw error;
      if (error.error === 'invalid_client' || error.error === 'invalid_grant') {
        logger.warn({ oauth_error: error.error, reason: error.message }, 'token request refused');
      }
      return oauthError(c, error);
    } finally {
      settle?.(outcome);
    }
  }

  app.post(TOKEN_PATH, (c) =>
    guarded(c, async (form, client) => {
      const grantType = form.get('grant_type');
      let body: TokenResponse;
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

  app.post(REVOKE_PATH, (c) =>
    guarded(c, async (form, client) => {
      const token = form.get('token');
      if (!token) throw new OAuthError(400, 'invalid_request', 'token is required');
      await tokens.revoke(client, token);
      return c.body(null, 200, NO_STORE);
    }),
  );

  for (const path of [TOKEN_PATH, REVOKE_PATH]) {
    app.all(path, (c) =>
      c.json({ error: 'invalid_request', error_description: 'use POST' }, 405, { ...NO_STORE, Allow: 'POST' }),
    );
  }
  return app;
}
