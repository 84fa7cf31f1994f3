/**
 * A request body sent with a content coding (Content-Encoding: gzip, ...) is not read as if it
 * were plain: 415 with `Accept-Encoding: identity` (RFC 9110 §15.5.16) on every route that takes
 * a body, in each surface's error shape; `identity` is plain and taken.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from './support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from './support/graphql.ts';

describe.each(providers)('content codings of request bodies on %s', (provider) => {
  let env: GraphQLTestEnv;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
  }, 120_000);
  afterAll(async () => env?.database.cleanup());

  const send = (path: string, type: string, body: string, encoding: string) =>
    env.t.request(path, {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.token}`, 'Content-Type': type, 'Content-Encoding': encoding },
      body: encoding === 'gzip' ? gzipSync(body) : body,
    });
  const unit = (reference: string) => JSON.stringify({ data: { type: 'units', attributes: { reference } } });

  it('REST: gzip is 415 unsupported_media_type naming the coding, and adds nothing', async () => {
    const before = await env.database.db.prisma.unit.count();
    const res = await send('/units', 'application/json', unit('gz-1'), 'gzip');
    expect(res.status).toBe(415);
    expect(res.headers.get('accept-encoding')).toBe('identity');
    const body = await res.json();
    expect(body.error.code).toBe('unsupported_media_type');
    expect(body.error.message).toContain('"gzip"');
    expect(await env.database.db.prisma.unit.count()).toBe(before);
    expect((await send('/units', 'application/json', unit('plain-1'), 'identity')).status).toBe(201);
  });

  it('GraphQL: 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await send(
      '/graphql',
      'application/json',
      JSON.stringify({ query: '{ units(first: 1) { totalCount } }' }),
      'br',
    );
    expect(res.status).toBe(415);
    const body = await res.json();
    expect(body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('the token endpoint: 415', async () => {
    const res = await send(
      '/oauth/token.php',
      'application/x-www-form-urlencoded',
      'grant_type=client_credentials',
      'gzip',
    );
    expect(res.status).toBe(415);
  });
});
