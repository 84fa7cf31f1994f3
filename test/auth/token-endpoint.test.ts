/**
 * POST /oauth/token.php and /oauth/revoke.php against auth.md: each grant's success shape and
 * headers, every error row, expiry, rotation, reuse detection, concurrency, throttling.
 * Time moves with an injected clock, never with sleeps.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, revokeClient } from '../../src/auth/clients.ts';
import { digest } from '../../src/auth/secrets.ts';
import { purgeTokens } from '../../src/auth/token-purge.ts';
import { VALIDATION_CACHE_MS } from '../../src/auth/tokens.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import { TestClock, basic, bearer, getTokens, postForm, tokenRequest, type Client } from '../support/oauth.ts';

const NO_THROTTLE = { addressLimit: 1000, clientLimit: 1000, slowAfter: 1000, delayStepMs: 0, windowMs: 60_000 };

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
  // Each app listens for revocations and role changes on connections of its own: an app a test
  // is done with lets them go (forty apps held eighty of PostgreSQL's hundred connections).
  afterEach(() => t.app.close());

  const errorOf = async (res: Response) => ({
    status: res.status,
    body: (await res.json()) as { error: string; error_description: string },
  });

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
      const form = {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
      };
      expect((await postForm(t, '/oauth/token.php', form)).status).toBe(200);
      const both = await postForm(t, '/oauth/token.php', form, {
        Authorization: basic(client.client_id, client.client_secret),
      });
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
      [
        'wrong content type',
        (c) =>
          t.request('/oauth/token.php', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: basic(c.client_id, c.client_secret) },
            body: '{"grant_type":"client_credentials"}',
          }),
        400,
        'invalid_request',
      ],
      ['missing grant_type', (c) => tokenRequest(t, c, {}), 400, 'invalid_request'],
      [
        'repeated parameter',
        (c) =>
          t.request('/oauth/token.php', {
            method: 'POST',
            headers: {
              'Content-Type': 'application/x-www-form-urlencoded',
              Authorization: basic(c.client_id, c.client_secret),
            },
            body: 'grant_type=client_credentials&grant_type=client_credentials',
          }),
        400,
        'invalid_request',
      ],
      [
        'credentials that differ between header and body',
        (c) =>
          postForm(
            t,
            '/oauth/token.php',
            { grant_type: 'client_credentials', client_id: other.client_id },
            { Authorization: basic(c.client_id, c.client_secret) },
          ),
        400,
        'invalid_request',
      ],
      ['missing refresh_token', (c) => tokenRequest(t, c, { grant_type: 'refresh_token' }), 400, 'invalid_request'],
      [
        'no client authentication',
        () => postForm(t, '/oauth/token.php', { grant_type: 'client_credentials' }),
        401,
        'invalid_client',
      ],
      [
        'unknown client',
        () => tokenRequest(t, { client_id: 'nobody', client_secret: 'x' }, { grant_type: 'client_credentials' }),
        401,
        'invalid_client',
      ],
      [
        'wrong secret',
        (c) => tokenRequest(t, { ...c, client_secret: `${c.client_secret}x` }, { grant_type: 'client_credentials' }),
        401,
        'invalid_client',
      ],
      [
        'unknown refresh token',
        (c) => tokenRequest(t, c, { grant_type: 'refresh_token', refresh_token: 'mdr_nope' }),
        400,
        'invalid_grant',
      ],
      ['unsupported grant type', (c) => tokenRequest(t, c, { grant_type: 'password' }), 400, 'unsupported_grant_type'],
      [
        'unknown scope',
        (c) => tokenRequest(t, c, { grant_type: 'client_credentials', scope: 'admin' }),
        400,
        'invalid_scope',
      ],
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

    it('invalid_client for a revoked client, whose tokens stop working too, within the 5 s a client is remembered', async () => {
      const doomed = await createClient(database.db.prisma, 'doomed', ['read']);
      const tokens = await getTokens(t, doomed);
      // Revoked elsewhere (the CLI, another replica): this replica trusts what it saw for up to 5 s (on SQLite; PostgreSQL replicas hear revocations at once).
      await revokeClient(database.db.prisma, doomed.client_id, clock);
      clock.advance(VALIDATION_CACHE_MS / 1000);
      expect(await errorOf(await tokenRequest(t, doomed, { grant_type: 'client_credentials' }))).toMatchObject({
        status: 401,
        body: { error: 'invalid_client' },
      });
      expect((await t.request('/customers', bearer(tokens.access_token))).status).toBe(401);
    });

    it('after a revocation no token of the client works beyond the 5 s, whatever the order of events', async () => {
      const doomed = await createClient(database.db.prisma, 'raced', ['read']);
      const trusted = await getTokens(t, doomed); // the client is now trusted from memory
      expect((await t.request('/customers', bearer(trusted.access_token))).status).toBe(200);
      const unused = await getTokens(t, doomed); // issued before, first shown after the revocation
      await revokeClient(database.db.prisma, doomed.client_id, clock);
      // Within the window this replica trusts the client it saw: still no grant.
      expect(await errorOf(await tokenRequest(t, doomed, { grant_type: 'client_credentials' }))).toMatchObject({
        status: 401,
        body: { error: 'invalid_client', error_description: 'this client has been revoked' },
      });
      expect(
        await errorOf(
          await tokenRequest(t, doomed, { grant_type: 'refresh_token', refresh_token: unused.refresh_token }),
        ),
      ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // A token another replica wrote for it as the revocation committed (it had read the client before).
      const late = `mda_${randomBytes(32).toString('base64url')}`;
      const owner = await database.db.prisma.apiClient.findUniqueOrThrow({ where: { client_id: doomed.client_id } });
      await database.db.prisma.oAuthToken.create({
        data: {
          digest: digest(late),
          kind: 'access',
          api_client_id: owner.id,
          family: 'late',
          scope: 'read',
          expires_at: new Date(clock.now().getTime() + 3600_000),
        },
      });
      for (const token of [late, unused.access_token]) {
        const res = await t.request('/customers', bearer(token));
        expect(res.status, token).toBe(401);
        expect((await res.json()).error_description).toBe('the client of this access token has been revoked');
      }
      // The one validated before: trusted at most VALIDATION_CACHE_MS more, then refused like the others.
      clock.advance(VALIDATION_CACHE_MS / 1000);
      expect((await t.request('/customers', bearer(trusted.access_token))).status).toBe(401);
    });

    it('405 for other methods', async () => {
      const res = await t.request('/oauth/token.php');
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    });
  });

  describe('input the database cannot store, and oversized bodies', () => {
    const rawForm = (body: BodyInit, headers: Record<string, string> = {}) =>
      t.request('/oauth/token.php', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });

    it.each([
      [
        'a NUL byte in client_id (form)',
        () => rawForm(`grant_type=client_credentials&client_id=a%00b&client_secret=x`),
        'parameter client_id contains a NUL character',
      ],
      [
        'a NUL byte in client_id (Basic)',
        () => rawForm('grant_type=client_credentials', { Authorization: basic('a%00b', 'x') }),
        'client_id contains a NUL character',
      ],
      [
        'a raw NUL byte in the body',
        () => rawForm('grant_type=client_credentials&client_id=a\u0000b&client_secret=x'),
        'parameter client_id contains a NUL character',
      ],
      [
        'malformed percent-encoding',
        () => rawForm('grant_type=client_credentials&client_id=%E0%A4%A&client_secret=x'),
        'parameter client_id is not valid percent-encoded UTF-8',
      ],
      [
        'invalid UTF-8 after decoding',
        () => rawForm('grant_type=client_credentials&client_id=%C3%28&client_secret=x'),
        'parameter client_id is not valid percent-encoded UTF-8',
      ],
      [
        'invalid UTF-8 bytes in the body',
        () => rawForm(new Uint8Array([...Buffer.from('grant_type=client_credentials&client_id='), 0xff, 0xfe])),
        'the body is not valid UTF-8',
      ],
    ])('%s: 400 invalid_request, before any SQL statement', async (_name, send, description) => {
      const before = database.db.statementCount;
      const res = await send();
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid_request', error_description: description });
      expect(database.db.statementCount).toBe(before);
    });

    it('a body over 16 KB declared by Content-Length: 413 shape B without reading it, and the connection is closed', async () => {
      const res = await rawForm('grant_type=client_credentials', { 'Content-Length': String(64 * 1024 * 1024) });
      expect(res.status).toBe(413);
      expect(res.headers.get('connection')).toBe('close');
      expect(await res.json()).toEqual({
        error: { code: 'payload_too_large', http_code: 413, message: 'the request body exceeds 16384 bytes' },
      });
    });

    it('a streamed 64 MB body: 413 after reading no more than the limit (memory stays flat)', async () => {
      let pulled = 0;
      const chunk = new Uint8Array(4096).fill(0x61);
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulled >= 64 * 1024 * 1024) return controller.close();
          pulled += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const res = await t.request('/oauth/token.php', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect((await res.json()).error.code).toBe('payload_too_large');
      // The stream is pulled a little ahead of the reader: a few chunks past 16 KB at most.
      expect(pulled).toBeLessThan(64 * 1024);
    });
  });

  it('a client created before secrets were SHA-256 digests (scrypt) still authenticates, and its stored form is upgraded', async () => {
    const legacy = await createClient(database.db.prisma, 'legacy', ['read']);
    const salt = randomBytes(16);
    const key = scryptSync(legacy.client_secret, salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const scryptHash = ['scrypt', 2 ** 15, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    await database.db.prisma.apiClient.update({
      where: { client_id: legacy.client_id },
      data: { secret_hash: scryptHash },
    });
    expect(
      (await tokenRequest(t, { ...legacy, client_secret: 'mds_wrong' }, { grant_type: 'client_credentials' })).status,
    ).toBe(401);
    expect((await tokenRequest(t, legacy, { grant_type: 'client_credentials' })).status).toBe(200);
    const row = await database.db.prisma.apiClient.findUniqueOrThrow({ where: { client_id: legacy.client_id } });
    expect(row.secret_hash).toMatch(/^sha256\$[0-9a-f]{64}$/);
    expect((await tokenRequest(t, legacy, { grant_type: 'client_credentials' })).status).toBe(200);
  });

  describe('lifetimes', () => {
    it('access tokens work for 3600 s and not a second longer', async () => {
      const { access_token } = await getTokens(t, client);
      clock.advance(3599);
      expect((await t.request('/customers', bearer(access_token))).status).toBe(200);
      clock.advance(1);
      const res = await t.request('/customers', bearer(access_token));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer realm="master-data", error="invalid_token", error_description="the access token has expired"',
      );
      expect(await res.json()).toEqual({ error: 'invalid_token', error_description: 'the access token has expired' });
    });

    it('refresh tokens expire after 30 days', async () => {
      const { refresh_token } = await getTokens(t, client);
      clock.advance(30 * 24 * 3600);
      expect(
        await errorOf(await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token })),
      ).toMatchObject({
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
      expect((await t.request('/customers', bearer(second.access_token))).status).toBe(200);
      const third = await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: second.refresh_token });
      expect(third.status).toBe(200);
    });

    it('may narrow the scope, never widen it', async () => {
      const { refresh_token } = await getTokens(t, client, 'read');
      const widened = await tokenRequest(t, client, {
        grant_type: 'refresh_token',
        refresh_token,
        scope: 'read write',
      });
      expect(await errorOf(widened)).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    });

    it('treats reuse of a rotated refresh token as theft: the whole family is revoked', async () => {
      const first = await getTokens(t, client);
      const second = await (
        await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: first.refresh_token })
      ).json();
      const reuse = await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
      expect(await errorOf(reuse)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // Everything descended from the grant is dead: the newest refresh token and both access tokens.
      expect(
        (
          await errorOf(
            await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: second.refresh_token }),
          )
        ).body.error,
      ).toBe('invalid_grant');
      expect((await t.request('/customers', bearer(second.access_token))).status).toBe(401);
      expect((await t.request('/customers', bearer(first.access_token))).status).toBe(401);
      // Another grant of the same client is untouched.
      expect((await getTokens(t, client)).access_token).toBeTruthy();
    });

    it("refuses another client's refresh token without spending it", async () => {
      const { refresh_token } = await getTokens(t, client);
      const stolen = await tokenRequest(t, other, { grant_type: 'refresh_token', refresh_token });
      expect(await errorOf(stolen)).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'the refresh token was issued to another client' },
      });
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
      const family = (
        await database.db.prisma.oAuthToken.findFirstOrThrow({
          where: { kind: 'refresh', rotated_at: { not: null } },
          orderBy: { id: 'desc' },
        })
      ).family;
      expect(await database.db.prisma.oAuthToken.count({ where: { family, kind: 'refresh' } })).toBe(2);
    });
  });

  describe('revocation (RFC 7009)', () => {
    it('revokes an access token at once', async () => {
      const { access_token } = await getTokens(t, client);
      expect((await t.request('/customers', bearer(access_token))).status).toBe(200);
      const res = await postForm(
        t,
        '/oauth/revoke.php',
        { token: access_token },
        { Authorization: basic(client.client_id, client.client_secret) },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const after = await t.request('/customers', bearer(access_token));
      expect(after.status).toBe(401);
      expect((await after.json()).error_description).toBe('the access token has been revoked');
    });

    it('revokes a refresh token with its family', async () => {
      const tokens = await getTokens(t, client);
      await postForm(
        t,
        '/oauth/revoke.php',
        { token: tokens.refresh_token, token_type_hint: 'refresh_token' },
        { Authorization: basic(client.client_id, client.client_secret) },
      );
      expect(
        (
          await errorOf(
            await tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
          )
        ).body.error,
      ).toBe('invalid_grant');
      expect((await t.request('/customers', bearer(tokens.access_token))).status).toBe(401);
    });

    it("answers 200 for unknown tokens and ignores other clients' tokens", async () => {
      const auth = { Authorization: basic(other.client_id, other.client_secret) };
      expect((await postForm(t, '/oauth/revoke.php', { token: 'mda_unknown' }, auth)).status).toBe(200);
      const { access_token } = await getTokens(t, client);
      expect((await postForm(t, '/oauth/revoke.php', { token: access_token }, auth)).status).toBe(200);
      expect((await t.request('/customers', bearer(access_token))).status).toBe(200);
    });

    it('requires client authentication and the token parameter', async () => {
      expect((await postForm(t, '/oauth/revoke.php', { token: 'x' })).status).toBe(401);
      const missing = await postForm(
        t,
        '/oauth/revoke.php',
        {},
        { Authorization: basic(client.client_id, client.client_secret) },
      );
      expect(await errorOf(missing)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    });
  });

  it('purges expired and revoked tokens, keeping rotated refresh tokens until they expire (reuse must stay detectable)', async () => {
    const own = await migratedDatabase(provider);
    const purgeClock = new TestClock();
    const app = testApp(own, {}, { clock: purgeClock, throttle: NO_THROTTLE });
    try {
      const erp = await createClient(own.db.prisma, 'erp', ['read']);
      const first = await getTokens(app, erp);
      const rotated = await (
        await tokenRequest(app, erp, { grant_type: 'refresh_token', refresh_token: first.refresh_token })
      ).json();
      const revoked = await getTokens(app, erp);
      await postForm(
        app,
        '/oauth/revoke.php',
        { token: revoked.refresh_token },
        { Authorization: basic(erp.client_id, erp.client_secret) },
      );
      expect(await own.db.prisma.oAuthToken.count()).toBe(6);

      expect(await purgeTokens(own.db.prisma, purgeClock)).toBe(2); // the revoked grant's two tokens
      purgeClock.advance(3600); // access tokens expire; refresh tokens (rotated or not) live on
      expect(await purgeTokens(own.db.prisma, purgeClock)).toBe(2);
      const reuse = await tokenRequest(app, erp, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
      expect((await reuse.json()).error_description).toMatch(/already used/);
      expect(
        (await tokenRequest(app, erp, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token })).status,
      ).toBe(400);
      // The reuse revoked the family: nothing of it can be accepted again, so all of it goes.
      expect(await purgeTokens(own.db.prisma, purgeClock)).toBe(2);
      expect(await own.db.prisma.oAuthToken.count()).toBe(0);
    } finally {
      await app.app.close();
      await own.cleanup();
    }
  });
});
