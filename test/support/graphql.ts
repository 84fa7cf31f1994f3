/** GraphQL over real HTTP semantics (app.fetch), against a seeded real database. */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { expect } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { seedDatabase } from '../../src/seed/write.ts';
import type { Provider } from '../../src/db/url.ts';
import { testApp, type TestApp } from './app.ts';
import { migratedDatabase, type MigratedDatabase } from './databases.ts';
import { getTokens } from './oauth.ts';

export interface GraphQLResponse<T = Record<string, any>> {
  status: number;
  contentType: string | null;
  body: {
    data?: T | null;
    errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[];
  };
}

export interface GraphQLTestEnv {
  database: MigratedDatabase;
  t: TestApp;
  /** read and write scopes */
  token: string;
  /** read only */
  readToken: string;
  /** Sends an operation; `statements` is how many SQL statements it cost. */
  gql<T = Record<string, any>>(
    query: string | TypedDocumentNode<T, any>,
    variables?: Record<string, unknown>,
    options?: { token?: string; accept?: string },
  ): Promise<GraphQLResponse<T> & { statements: number }>;
}

/** A migrated database seeded at scale 1 (the demo data), an app over it, and tokens. */
export async function graphqlEnv(provider: Provider): Promise<GraphQLTestEnv> {
  const database = await migratedDatabase(provider);
  await seedDatabase(database.db, { scale: 1 });
  const t = testApp(database);
  const token = (await getTokens(t, await createClient(database.db.prisma, 'erp', ['read', 'write']))).access_token;
  const readToken = (await getTokens(t, await createClient(database.db.prisma, 'bi', ['read']))).access_token;
  return {
    database,
    t,
    token,
    readToken,
    async gql(query, variables, options = {}) {
      const before = database.db.statementCount;
      const res = await t.request('/graphql', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${options.token ?? token}`,
          'Content-Type': 'application/json',
          Accept: options.accept ?? 'application/graphql-response+json',
        },
        body: JSON.stringify({ query: typeof query === 'string' ? query : print(query), variables }),
      });
      const statements = database.db.statementCount - before;
      return { status: res.status, contentType: res.headers.get('content-type'), body: await res.json(), statements };
    },
  };
}

type GraphQLResult = Awaited<ReturnType<GraphQLTestEnv['gql']>>;
export type GraphQLResponseError = NonNullable<GraphQLResult['body']['errors']>[number];

/** Expectations on operations, for an env made in beforeAll (hence the getter). */
export function operationExpectations(env: () => GraphQLTestEnv) {
  /** The data of an operation that must succeed. */
  async function ok(query: string, variables?: Record<string, unknown>): Promise<any> {
    const res = await env().gql(query, variables);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.status).toBe(200);
    return res.body.data;
  }

  /** The first error of an operation that must fail during execution; its field in `data` is null. */
  async function refused(
    query: string,
    variables: Record<string, unknown> | undefined,
    code: string,
    field?: string,
  ): Promise<GraphQLResponseError> {
    const res = await env().gql(query, variables);
    expect(res.body.errors, `expected ${code}, got ${JSON.stringify(res.body)}`).toBeDefined();
    const error = res.body.errors![0]!;
    expect(error.extensions?.code, error.message).toBe(code);
    if (field !== undefined) expect(error.extensions?.field, error.message).toBe(field);
    expect(
      Object.values(res.body.data ?? {}).every((v) => v === null),
      JSON.stringify(res.body.data),
    ).toBe(true);
    return error;
  }

  /** NOT_FOUND whose message names the type and the id. */
  async function notFound(
    query: string,
    variables: Record<string, unknown> | undefined,
    type: RegExp,
    id: number,
  ): Promise<void> {
    const error = await refused(query, variables, 'NOT_FOUND');
    expect(error.message).toMatch(type);
    expect(error.message).toMatch(new RegExp(`\\b${id}\\b`));
  }

  return { ok, refused, notFound };
}
