/**
 * Bearer protection, deny by default (auth.md "Protected resources"): every route but the
 * declared open ones needs a valid token; writes need the write scope. Each refusal has RFC
 * 6750's status and challenge; its body is RFC 6750's, but on /graphql GraphQL errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, revokeClient } from '../../src/auth/clients.ts';
import { VALIDATION_CACHE_MS } from '../../src/auth/tokens.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import { TestClock, basic, bearer, getTokens, postForm, tokenRequest, type Client } from '../support/oauth.ts';

/** How /graphql says a refusal: GraphQL errors with a code (its other refusals: test/graphql/http-errors.test.ts). */
const graphqlError = (code: string, message: string) => ({ errors: [{ message, extensions: { code } }] });

describe.each(providers)('bearer protection on %s', (provider) => {
  let database: MigratedDatabase;
  let t: TestApp;
  let clock: TestClock;
  let writer: Client;
  let reader: Client;
  let writeToken: string;
  let readToken: string;

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    clock = new TestClock();
    t = testApp(database, {}, { clock });
    writer = await createClient(database.db.prisma, 'erp', ['read', 'write']);
    reader = await createClient(database.db.prisma, 'bi', ['read']);
    writeToken = (await getTokens(t, writer)).access_token;
    readToken = (await getTokens(t, reader)).access_token;
  });
  afterAll(async () => database?.cleanup());

  const protectedRoutes: [string, string][] = [
    ['POST', '/graphql'],
    ['GET', '/graphql?query={__typename}'],
    ['GET', '/customers'],
    ['GET', '/customers/1/relationships/address'],
    ['PATCH', '/products/1'],
    ['GET', '/not/declared/anywhere'],
  ];

  it.each(protectedRoutes)(
    '%s %s without a token: 401 invalid_request with the Bearer challenge',
    async (method, path) => {
      const res = await t.request(path, { method });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="master-data"');
      const description = 'an access token is required: Authorization: Bearer <token>';
      expect(await res.json()).toEqual(
        path.startsWith('/graphql')
          ? graphqlError('UNAUTHENTICATED', description)
          : { error: 'invalid_request', error_description: description },
      );
    },
  );

  it.each(protectedRoutes)(
    '%s %s with an unknown token: 401 invalid_token, so clients know to refresh',
    async (method, path) => {
      const res = await t.request(path, { method, ...bearer('mda_doesnotexist') });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer realm="master-data", error="invalid_token", error_description="unknown access token"',
      );
      expect(await res.json()).toEqual(
        path.startsWith('/graphql')
          ? graphqlError('UNAUTHENTICATED', 'unknown access token')
          : { error: 'invalid_token', error_description: 'unknown access token' },
      );
    },
  );

  it('a client secret in a Basic header does not open resource routes', async () => {
    const res = await t.request('/customers', {
      headers: { Authorization: basic(writer.client_id, writer.client_secret) },
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe('invalid_request');
  });

  it('`Bearer` without a token: 400 invalid_request (RFC 6750 §3.1)', async () => {
    const res = await t.request('/customers', { headers: { Authorization: 'Bearer ' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="master-data", error="invalid_request", error_description="the Bearer scheme needs a token: Authorization: Bearer <token>"',
    );
    expect((await res.json()).error).toBe('invalid_request');
  });

  it('a malformed bearer credential is an invalid token', async () => {
    const res = await t.request('/customers', { headers: { Authorization: 'Bearer not a token' } });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe('invalid_token');
  });

  it('an expired token: 401 invalid_token', async () => {
    const expiring = await getTokens(t, reader);
    clock.advance(3600);
    const res = await t.request('/customers', bearer(expiring.access_token));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    writeToken = (await getTokens(t, writer)).access_token;
    readToken = (await getTokens(t, reader)).access_token;
  });

  it.each([
    ['POST', '/customers'],
    ['PATCH', '/customers/1'],
    ['PUT', '/customers/1'],
    ['DELETE', '/customers/1/relationships/inform_on_complaint_users'],
  ])('a read-only token on %s %s: 403 insufficient_scope', async (method, path) => {
    const res = await t.request(path, { method, ...bearer(readToken) });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="master-data", error="insufficient_scope", error_description="this operation needs the write scope", scope="write"',
    );
    expect(await res.json()).toEqual({
      error: 'insufficient_scope',
      error_description: 'this operation needs the write scope',
    });
  });

  it('a read-only token reads, a read-write token writes (past auth, the request itself is judged)', async () => {
    expect((await t.request('/customers', bearer(readToken))).status).toBe(200);
    // Authorised: the missing body is what is wrong with this write.
    expect((await t.request('/customers', { method: 'POST', ...bearer(writeToken) })).status).toBe(415);
  });

  it.each([
    ['GET', '/healthz', 200],
    ['GET', '/readyz', 200],
    ['GET', '/metrics', 200],
    ['GET', '/oauth/token.php', 405],
    ['POST', '/oauth/revoke.php', 401], // the endpoint's own client authentication, not a bearer challenge
  ])('%s %s stays open', async (method, path, status) => {
    const res = await t.request(path, {
      method,
      ...(method === 'POST'
        ? { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'token=x' }
        : {}),
    });
    expect(res.status).toBe(status);
    expect(res.headers.get('www-authenticate') ?? '').not.toContain('Bearer');
  });

  it('validates a token once, then answers from memory: no SQL statement per request', async () => {
    const { access_token } = await getTokens(t, reader);
    // A path no route answers: past authentication nothing else reads the database.
    const before = database.db.statementCount;
    await t.request('/nowhere', bearer(access_token));
    const afterFirst = database.db.statementCount;
    for (let i = 0; i < 5; i++) await t.request('/nowhere', bearer(access_token));
    expect(afterFirst - before).toBe(1);
    expect(database.db.statementCount).toBe(afterFirst);
  });

  it('a revocation made elsewhere (the CLI, another replica) takes effect within the cache lifetime', async () => {
    const short = await createClient(database.db.prisma, 'short-lived', ['read']);
    const { access_token } = await getTokens(t, short);
    expect((await t.request('/customers', bearer(access_token))).status).toBe(200);
    await revokeClient(database.db.prisma, short.client_id, clock);
    clock.advance(VALIDATION_CACHE_MS / 1000);
    expect((await t.request('/customers', bearer(access_token))).status).toBe(401);
    expect(VALIDATION_CACHE_MS).toBeLessThanOrEqual(5000);
  });

  it('protects routes under BASE_PATH the same way', async () => {
    const prefixed = testApp(database, { basePath: '/md' }, { clock });
    expect((await prefixed.request('/md/healthz')).status).toBe(200);
    expect((await prefixed.request('/md/customers')).status).toBe(401);
    const token = await postForm(
      prefixed,
      '/md/oauth/token.php',
      { grant_type: 'client_credentials' },
      { Authorization: basic(reader.client_id, reader.client_secret) },
    );
    expect(token.status).toBe(200);
  });

  it('never writes tokens, secrets or refresh tokens to the logs', async () => {
    const logged = testApp(database, {}, { clock });
    const tokens = await getTokens(logged, writer);
    await logged.request('/customers', bearer(tokens.access_token));
    const refreshed = await (
      await tokenRequest(logged, writer, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
    ).json();
    await tokenRequest(logged, writer, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }); // reuse: logged as a warning
    await tokenRequest(
      logged,
      { ...writer, client_secret: 'wrong-secret-value' },
      { grant_type: 'client_credentials' },
    );
    await postForm(
      logged,
      '/oauth/revoke.php',
      { token: refreshed.access_token },
      { Authorization: basic(writer.client_id, writer.client_secret) },
    );
    const raw = logged.rawLogs();
    expect(logged.logs().length).toBeGreaterThanOrEqual(6);
    for (const secret of [
      tokens.access_token,
      tokens.refresh_token,
      refreshed.access_token,
      refreshed.refresh_token,
      writer.client_secret,
      'wrong-secret-value',
    ]) {
      expect(raw).not.toContain(secret);
    }
    expect(raw).not.toContain(Buffer.from(`${writer.client_id}:${writer.client_secret}`).toString('base64'));
  });
});
