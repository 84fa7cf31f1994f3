/**
 * POST /oauth/token.php and /oauth/revoke.php against auth.md: each grant's success shape and
 * headers, every error row, expiry, rotation, reuse detection, concurrency, throttling.
 * Time moves with an injected clock, never with sleeps.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, revokeClient } from '../../src/auth/clients.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import { TestClock, basic, bearer, getTokens, postForm, tokenRequest, type Client } from '../support/oauth.ts';

const NO_THROTTLE = { slowAfter: 1000, blockAfter: 1000, windowMs: 60_000, delayStepMs: 0 };

describe.each(providers)('token endpoint on %s', (provider) => {
  let database: MigratedDatabase;
  let clock: TestClock;
  let t: TestApp;
  let client: Client;
  let readOnly: Client;
  let other: Client;

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    client = await createClient(database.db.prisma, 'erp', ['read', 'write']);
    readOnly = await createClient(database.db.prisma, 'reporting', ['read']);
    other = await createClient(database.db.prisma, 'webshop', ['read', 'write']);
  });
  afterAll(async () => database?.cleanup());
  beforeEach(() => {
    clock = new TestClock();
    t = testApp(database, {}, { clock, throttle: NO_THROTTLE });
  });

  const errorOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as { error: string; error_description: string } });

  describe('client_credentials grant', () => {
    it('issues an access and a refresh token with the contract headers and shape', async () => {
      const res = await tokenRequest(t, client, { grant_type: 'client_credentials' });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = await res.json();
      expect(body).toEqual({
        access_token: expect.stringMatching(/^mda_[A-Za-z0-9_-]{43}$/),
        expires_in: 3600,
        token_type: 'Bearer',
        scope: 'read write',
        refresh_token: expect.stringMatching(/^mdr_[A-Za-z0-9_-]{43}$/),
      });
    });

    it('grants a requested subset of the client scopes', async () => {
      expect((await getTokens(t, client, 'read')).scope).toBe('read');
    });

    it('accepts client credentials in the form body, and in both places when they agree', async () => {
      const form = { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret };
      expect((await postForm(t, '/oauth/token.php', form)).status).toBe(200);
      const both = await postForm(t, '/oauth/token.php', form, { Authorization: basic(client.client_id, client.client_secret) });
      expect(both.status).toBe(200);
    });

    it('stores tokens only as SHA-256 digests', async () => {
      const tokens = await getTokens(t, client);
      const rows = await database.db.prisma.oAuthToken.findMany({ select: { digest: true } });
      expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.digest))).toBe(true);
      expect(JSON.stringify(rows)).not.toContain(tokens.access_token);
      const stored = await database.db.prisma.apiClient.findMany({ select: { secret_hash: true } });
      expect(JSON.stringify(stored)).not.toContain(client.client_secret);
    });
  });

  describe('errors (RFC 6749 §5.2)', () => {
    const cases: [string, (c: Client) => Promise<Response>, number, string][] = [
      ['wrong content type', (c) => t.request('/oauth/token.php', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: basic(c.client_id, c.client_secret) }, body: '{"grant_type":"client_credentials"}' }), 400, 'invalid_request'],
      ['missing grant_type', (c) => tokenRequest(t, c, {}), 400, 'invalid_request'],
      ['repeated parameter', (c) => t.request('/oauth/token.php', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic(c.client_id, c.client_secret) }, body: 'grant_type=client_credentials&grant_type=client_credentials' }), 400, 'invalid_request'],
      ['credentials that differ between header and body', (c) => postForm(t, '/oauth/token.php', { grant_type: 'client_credentials', client_id: other.client_id }, { Authorization: basic(c.client_id, c.client_secret) }), 400, 'invalid_request'],
      ['missing refresh_token', (c) => tokenRequest(t, c, { grant_type: 'refresh_token' }), 400, 'invalid_request'],
      ['no client authentication', () => postForm(t, '/oauth/token.php', { grant_type: 'client_credentials' }), 401, 'invalid_client'],
      ['unknown client', () => tokenRequest(t, { client_id: 'nobody', client_secret: 'x' }, { grant_type: 'client_credentials' }), 401, 'invalid_client'],
      ['wrong secret', (c) => tokenRequest(t, { ...c, client_secret: `${c.client_secret}x` }, { grant_type: 'client_credentials' }), 401, 'invalid_client'],
      ['unknown refresh token', (c) => tokenRequest(t, c, { grant_type: 'refresh_token', refresh_token: 'mdr_nope' }), 400, 'invalid_grant'],
      ['unsupported grant type', (c) => tokenRequest(t, c, { grant_type: 'password' }), 400, 'unsupported_grant_type'],
      ['unknown scope', (c) => tokenRequest(t, c, { grant_type: 'client_credentials', scope: 'admin' }), 400, 'invalid_scope'],
    ];
    it.each(cases)('%s', async (_name, send, status, error) => {
      const res = await send(client);
      const { body } = await errorOf(res.clone());
      expect(res.status).toBe(status);
      expect(body.error).toBe(error);
      expect(body.error_description).toEqual(expect.any(String));
      expect(res.headers.get('cache-control')).toBe('no-store');
      if (status === 401) expect(res.headers.get('www-authenticate')).toBe('Basic realm="master-data"');
    });

    it('invalid_scope when a read-only client asks for write', async () => {
      const res = await tokenRequest(t, readOnly, { grant_type: 'client_credentials', scope: 'read write' });
      expect(await errorOf(res)).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    });

    it('invalid_client for a revoked client, whose tokens stop working too', async () => {
      const doomed = await createClient(database.db.prisma, 'doomed', ['read']);
      const tokens = await getTokens(t, doomed);
      await revokeClient(database.db.prisma, doomed.client_id, clock);
      expect(await errorOf(await tokenRequest(t, doomed, { grant_type: 'client_credentials' }))).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      expect((await t.request('/customers', bearer(tokens.access_token))).status).toBe(401);
    });

    it('405 for other methods', async () => {
      const res = await t.request('/oauth/token.php');
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    });
  });

  describe('lifetimes', () => {
    it('access tokens work for 3600 s and not a second longer', async () => {
      const { access_token } = await getTokens(t, client);
      clock.advance(3599);
      expect((await t.request('/customers', bearer(access_token))).status).toBe(404); // authorised; the route comes with REST
      clock.advance(1);
      const res = await t.request('/customers', bearer(access_token));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="master-data", error="invalid_token", error_description="the access token has expired"');
      expect(await res.json()).toEqual({ error: 'invalid_token', error_description: 'the access token has expired' });
    });

    it('refresh tokens expire after 30 days', async () => {
      const { refresh_token } = await getTokens(t, client);
      clock.advance(30 * 24 * 3600);
      expect(await errorOf(await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token }))).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'the refresh token has expired' },
      });
    });
  });

  describe('refresh_token grant', () => {
    it('rotates: a new pair, the old refresh token spent, the new one working', async () => {
      const first = await getTokens(t, client);
      const res = await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const second = await res.json();
      expect(second).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write' });
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect((await t.request('/customers', bearer(second.access_token))).status).toBe(404);
      const third = await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: second.refresh_token });
      expect(third.status).toBe(200);
    });

    it('may narrow the scope, never widen it', async () => {
      const { refresh_token } = await getTokens(t, client, 'read');
      const widened = await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token, scope: 'read write' });
      expect(await errorOf(widened)).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    });

    it('treats reuse of a rotated refresh token as theft: the whole family is revoked', async () => {
      const first = await getTokens(t, client);
      const second = await (await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: first.refresh_token })).json();
      const reuse = await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
      expect(await errorOf(reuse)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // Everything descended from the grant is dead: the newest refresh token and both access tokens.
      expect((await errorOf(await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: second.refresh_token }))).body.error).toBe('invalid_grant');
      expect((await t.request('/customers', bearer(second.access_token))).status).toBe(401);
      expect((await t.request('/customers', bearer(first.access_token))).status).toBe(401);
      // Another grant of the same client is untouched.
      expect((await getTokens(t, client)).access_token).toBeTruthy();
    });

    it("refuses another client's refresh token without spending it", async () => {
      const { refresh_token } = await getTokens(t, client);
      const stolen = await tokenRequest(t, other, { grant_type: 'refresh_token', refresh_token });
      expect(await errorOf(stolen)).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'the refresh token was issued to another client' } });
      expect((await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token })).status).toBe(200);
    });

    it('fifty parallel refreshes with one token yield exactly one new token', async () => {
      const { refresh_token } = await getTokens(t, client);
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token })),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 400)).toHaveLength(49);
      const family = (await database.db.prisma.oAuthToken.findFirstOrThrow({ where: { kind: 'refresh', rotated_at: { not: null } }, orderBy: { id: 'desc' } })).family;
      expect(await database.db.prisma.oAuthToken.count({ where: { family, kind: 'refresh' } })).toBe(2);
    });
  });

  describe('revocation (RFC 7009)', () => {
    it('revokes an access token at once', async () => {
      const { access_token } = await getTokens(t, client);
      expect((await t.request('/customers', bearer(access_token))).status).toBe(404);
      const res = await postForm(t, '/oauth/revoke.php', { token: access_token }, { Authorization: basic(client.client_id, client.client_secret) });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const after = await t.request('/customers', bearer(access_token));
      expect(after.status).toBe(401);
      expect((await after.json()).error_description).toBe('the access token has been revoked');
    });

    it('revokes a refresh token with its family', async () => {
      const tokens = await getTokens(t, client);
      await postForm(t, '/oauth/revoke.php', { token: tokens.refresh_token, token_type_hint: 'refresh_token' }, { Authorization: basic(client.client_id, client.client_secret) });
      expect((await errorOf(await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }))).body.error).toBe('invalid_grant');
      expect((await t.request('/customers', bearer(tokens.access_token))).status).toBe(401);
    });

    it("answers 200 for unknown tokens and ignores other clients' tokens", async () => {
      const auth = { Authorization: basic(other.client_id, other.client_secret) };
      expect((await postForm(t, '/oauth/revoke.php', { token: 'mda_unknown' }, auth)).status).toBe(200);
      const { access_token } = await getTokens(t, client);
      expect((await postForm(t, '/oauth/revoke.php', { token: access_token }, auth)).status).toBe(200);
      expect((await t.request('/customers', bearer(access_token))).status).toBe(404);
    });

    it('requires client authentication and the token parameter', async () => {
      expect((await postForm(t, '/oauth/revoke.php', { token: 'x' })).status).toBe(401);
      const missing = await postForm(t, '/oauth/revoke.php', {}, { Authorization: basic(client.client_id, client.client_secret) });
      expect(await errorOf(missing)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    });
  });
});

describe('throttling of repeated failures', () => {
  let database: MigratedDatabase;
  let client: Client;
  beforeAll(async () => {
    database = await migratedDatabase('sqlite');
    client = await createClient(database.db.prisma, 'erp', ['read', 'write']);
  });
  afterAll(async () => database?.cleanup());
  const throttle = { slowAfter: 1000, blockAfter: 3, windowMs: 60_000, delayStepMs: 0 };

  it('answers 429 with Retry-After for a client after repeated failures, until the window passes', async () => {
    const clock = new TestClock();
    const t = testApp(database, {}, { clock, throttle });
    const wrong = { client_id: client.client_id, client_secret: 'wrong' };
    for (let i = 0; i < 3; i++) expect((await tokenRequest(t, wrong, { grant_type: 'client_credentials' })).status).toBe(401);
    const blocked = await tokenRequest(t, client, { grant_type: 'client_credentials' });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBe(60);
    expect((await blocked.json()).error).toBe('rate_limited');
    clock.advance(45);
    expect((await tokenRequest(t, client, { grant_type: 'client_credentials' })).headers.get('retry-after')).toBe('15');
    clock.advance(15);
    expect((await tokenRequest(t, client, { grant_type: 'client_credentials' })).status).toBe(200);
  });

  it('blocks an address that sprays many client ids', async () => {
    const t = testApp(database, {}, { clock: new TestClock(), throttle });
    for (let i = 0; i < 3; i++) {
      expect((await tokenRequest(t, { client_id: `guess-${i}`, client_secret: 'x' }, { grant_type: 'client_credentials' })).status).toBe(401);
    }
    expect((await tokenRequest(t, client, { grant_type: 'client_credentials' })).status).toBe(429);
  });

  it('slows answers down before refusing them', async () => {
    const { FailureThrottle } = await import('../../src/auth/throttle.ts');
    const slow = new FailureThrottle(new TestClock(), { slowAfter: 2, blockAfter: 10, windowMs: 60_000, delayStepMs: 200 });
    const delays = [];
    for (let i = 0; i < 9; i++) {
      delays.push(slow.delayMs(['k']));
      slow.fail(['k']);
    }
    expect(delays).toEqual([0, 0, 0, 200, 400, 600, 800, 1000, 1000]);
    expect(slow.retryAfter(['k'])).toBe(0);
    slow.fail(['k']);
    expect(slow.retryAfter(['k'])).toBe(60);
  });
});
