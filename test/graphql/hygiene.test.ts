/**
 * What GraphQL tells a client it should not (graphql.md "Limits and hygiene"): internals of an
 * unexpected failure, the schema piece by piece through suggestions when introspection is off;
 * and batched operations, which would multiply every per-request limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../support/app.ts';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';

describe.each(providers)('GraphQL hygiene on %s', (provider) => {
  let env: GraphQLTestEnv;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
  });
  afterAll(async () => env?.database.cleanup());

  const post = (app: ReturnType<typeof testApp>, body: string) =>
    app.request('/graphql', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${env.token}`,
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json',
      },
      body,
    });

  it('masks an unexpected failure: a generic error with a code, the details in the log only', async () => {
    const t = testApp(env.database);
    // A table gone from under the service: the database's own error must not reach the client.
    await env.database.db.prisma.$executeRawUnsafe('ALTER TABLE "brands" RENAME TO "brands_gone"');
    try {
      const res = await post(
        t,
        JSON.stringify({ query: '{ brand(id: 1) { id reference } units(first: 1) { nodes { id } } }' }),
      );
      const text = await res.text();
      expect(res.status).toBe(200);
      const body = JSON.parse(text);
      expect(body.data).toEqual({ brand: null, units: { nodes: [{ id: expect.any(Number) }] } });
      expect(body.errors).toEqual([
        expect.objectContaining({
          message: 'the server could not complete this field',
          path: ['brand'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        }),
      ]);
      expect(text).not.toMatch(/brands|SELECT|relation|table|\.ts|at /i);
      const logged = t.logs().find((l) => l.msg === 'unhandled error in a GraphQL operation');
      expect(JSON.stringify(logged)).toMatch(/brands/);
    } finally {
      await env.database.db.prisma.$executeRawUnsafe('ALTER TABLE "brands_gone" RENAME TO "brands"');
    }
  });

  it('the same failure on REST is a 500 internal_error in shape B, without internals', async () => {
    const t = testApp(env.database);
    await env.database.db.prisma.$executeRawUnsafe('ALTER TABLE "brands" RENAME TO "brands_gone"');
    try {
      const res = await t.request('/brands/1', { headers: { Authorization: `Bearer ${env.token}` } });
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(JSON.parse(text)).toEqual({
        error: { code: 'internal_error', http_code: 500, message: 'the server could not complete the request' },
      });
      expect(t.logs().some((l) => l.msg === 'unhandled error')).toBe(true);
    } finally {
      await env.database.db.prisma.$executeRawUnsafe('ALTER TABLE "brands_gone" RENAME TO "brands"');
    }
  });

  it('with introspection off: no __schema, and no "did you mean" that would hand the schema out', async () => {
    const open = testApp(env.database);
    const closed = testApp(env.database, { graphqlIntrospection: false });
    const typo = JSON.stringify({ query: '{ product(id: 1) { referenc } }' });

    const suggested = await (await post(open, typo)).json();
    expect(suggested.errors[0].message).toMatch(/Did you mean "reference"/);
    const hidden = await post(closed, typo);
    expect(hidden.status).toBe(400);
    const hiddenBody = await hidden.json();
    expect(hiddenBody.errors[0].message).toMatch(/Cannot query field "referenc"/);
    expect(JSON.stringify(hiddenBody)).not.toMatch(/reference/);

    expect((await post(open, JSON.stringify({ query: '{ __schema { queryType { name } } }' }))).status).toBe(200);
    const introspection = await post(closed, JSON.stringify({ query: '{ __schema { queryType { name } } }' }));
    expect(introspection.status).toBe(400);
    expect((await introspection.json()).errors[0].message).toMatch(/introspection/i);
  });

  it('refuses batched operations (a JSON array) with 400 and says so', async () => {
    // A clock that stands still: the token, validated once, stays trusted from memory however long
    // a busy machine takes between the two requests (a second validation would count a statement).
    const now = new Date();
    const t = testApp(env.database, {}, { clock: { now: () => now } });
    await post(t, JSON.stringify({ query: '{ __typename }' }));
    const before = env.database.db.statementCount;
    const res = await post(
      t,
      JSON.stringify([{ query: '{ units(first: 1) { nodes { id } } }' }, { query: '{ __typename }' }]),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].message).toMatch(/batched operations .* not supported/);
    expect(env.database.db.statementCount).toBe(before);
  });
});
