/**
 * Trusted documents, on both databases: a client registers the documents GraphQL Code Generator
 * wrote (test/graphql/generated/persisted-documents.json); in `enforce` it runs those only, by id
 * (POST, GET, Apollo's persisted queries) or as text, and anything else is refused with the
 * documented codes; a document registered for one client does not run for another; registration
 * refuses a document that would not run under the client's role; a GET by id is cacheable (304);
 * `log` runs anything and logs what is not registered; uses are counted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createClient } from '../../src/auth/clients.ts';
import { DocumentsRefused, documentId, registerDocuments } from '../../src/graphql/trusted-documents.ts';
import { RoleBook } from '../../src/permissions/book.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { listen } from '../support/live.ts';
import { getTokens } from '../support/oauth.ts';
import { wsUrl } from '../support/ws.ts';
import { EXAMPLE_ROLES, applyTestRoles } from '../support/roles.ts';

/** What `npm run codegen` wrote for the operations of test/graphql/documents. */
const PERSISTED = JSON.parse(
  readFileSync(join(import.meta.dirname, 'generated/persisted-documents.json'), 'utf8'),
) as Record<string, string>;
const PAGE_ID = Object.keys(PERSISTED).find((id) => PERSISTED[id]!.startsWith('query ProductPage'))!;
const PAGE = PERSISTED[PAGE_ID]!;
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

describe.each(providers)('trusted documents on %s', (provider) => {
  let env: GraphQLTestEnv;
  let t: TestApp;
  /** A client in each mode, and one that registered nothing. */
  const tokens: Record<'enforce' | 'log' | 'other', string> = { enforce: '', log: '', other: '' };
  const rowIds: Record<string, number> = {};
  let productId: number;

  beforeAll(async () => {
    env = await graphqlEnv(provider);
    const { db } = env.database;
    await applyTestRoles(db, EXAMPLE_ROLES);
    t = testApp(env.database);
    for (const mode of ['enforce', 'log', 'other'] as const) {
      const client = await createClient(db.prisma, `app-${mode}`, ['read']);
      const row = await db.prisma.apiClient.update({
        where: { client_id: client.client_id },
        data: { documents: mode === 'other' ? 'enforce' : mode },
      });
      rowIds[mode] = row.id;
      tokens[mode] = (await getTokens(t, client, 'read')).access_token;
      if (mode !== 'other') await registerDocuments(db, row.id, PERSISTED, undefined, true);
    }
    productId = (await db.prisma.product.findFirstOrThrow({ select: { id: true } })).id;
  }, 60_000);
  afterAll(async () => {
    await t?.app.close();
    await env?.t.app.close();
    await env?.database.cleanup();
  });

  const send = async (
    token: string,
    init: { method?: string; search?: string; body?: unknown; headers?: Record<string, string> },
  ) => {
    const res = await t.request(`/graphql${init.search ?? ''}`, {
      method: init.method ?? 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        accept: GRAPHQL_RESPONSE,
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  const variables = () => ({ id: productId });
  const expectPage = (answer: { status: number; body: any }) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.product.id).toBe(productId);
  };
  const expectRefused = (answer: { status: number; body: any }, code: string) => {
    expect(answer.status).toBe(400);
    expect(answer.body.errors.map((e: any) => e.extensions.code)).toEqual([code]);
  };

  it('enforce: a registered document runs by id over POST and GET, by Apollo persisted query, and as its text', async () => {
    expectPage(await send(tokens.enforce, { body: { documentId: PAGE_ID, variables: variables() } }));
    const search = `?${new URLSearchParams({ documentId: PAGE_ID, variables: JSON.stringify(variables()) })}`;
    expectPage(await send(tokens.enforce, { method: 'GET', search }));
    const persistedQuery = { version: 1, sha256Hash: PAGE_ID.slice('sha256:'.length) };
    expectPage(await send(tokens.enforce, { body: { extensions: { persistedQuery }, variables: variables() } }));
    expectPage(await send(tokens.enforce, { body: { query: PAGE, variables: variables() } }));
  });

  it('enforce: a registered document runs by id over WebSocket (beside the empty query graphql-ws asks for)', async () => {
    const served = await listen(testApp(env.database).app);
    const client = createWsClient({
      url: wsUrl(served.baseUrl),
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${tokens.enforce}` },
      retryAttempts: 0,
    });
    try {
      const run = (payload: Record<string, unknown>) =>
        new Promise<any>((resolve, reject) => {
          let result: unknown;
          client.subscribe(payload as never, {
            next: (value) => (result = value),
            error: (error) => resolve({ errors: error }),
            complete: () => resolve(result),
          });
          setTimeout(() => reject(new Error('no answer over WebSocket')), 10_000);
        });
      const byId = await run({ query: '', documentId: PAGE_ID, variables: variables() });
      expect(byId.errors).toBeUndefined();
      expect(byId.data.product.id).toBe(productId);
      const text = await run({ query: '{ products(first: 1) { totalCount } }' });
      expect(text.errors.map((e: any) => e.extensions.code)).toEqual(['TRUSTED_DOCUMENT_REQUIRED']);
    } finally {
      await client.dispose();
      await served.close();
    }
  });

  it('enforce: any other text is TRUSTED_DOCUMENT_REQUIRED, an unknown id PERSISTED_QUERY_NOT_FOUND', async () => {
    const other = `query Other($id: Int!) { product(id: $id) { id } }`;
    const text = await send(tokens.enforce, { body: { query: other, variables: variables() } });
    expectRefused(text, 'TRUSTED_DOCUMENT_REQUIRED');
    expect(text.body.errors[0].message).toContain(documentId(other));
    expectRefused(await send(tokens.enforce, { body: { documentId: documentId(other) } }), 'PERSISTED_QUERY_NOT_FOUND');
    // An unknown hash with its text beside it (APQ's second try) does not register it either.
    const persistedQuery = { version: 1, sha256Hash: documentId(other).slice('sha256:'.length) };
    expectRefused(
      await send(tokens.enforce, { body: { query: other, extensions: { persistedQuery }, variables: variables() } }),
      'PERSISTED_QUERY_NOT_FOUND',
    );
    expectRefused(await send(tokens.enforce, { body: { documentId: 'sha256:nothex' } }), 'BAD_REQUEST');
  });

  it('a persisted query that is not an object with a string hash is a 400 naming extensions.persistedQuery.sha256Hash', async () => {
    for (const persistedQuery of [5, { version: 1 }, { version: 1, sha256Hash: 5 }]) {
      const answer = await send(tokens.enforce, { body: { extensions: { persistedQuery } } });
      expectRefused(answer, 'BAD_REQUEST');
      expect(answer.body.errors[0].message).toMatch(/^"extensions\.persistedQuery\.sha256Hash" must be a string/);
    }
  });

  it('a document registered for one client does not run for another', async () => {
    expectRefused(
      await send(tokens.other, { body: { documentId: PAGE_ID, variables: variables() } }),
      'PERSISTED_QUERY_NOT_FOUND',
    );
    expectRefused(
      await send(tokens.other, { body: { query: PAGE, variables: variables() } }),
      'TRUSTED_DOCUMENT_REQUIRED',
    );
  });

  it("registration refuses a document that would not run under the client's role, and stores nothing", async () => {
    const { db } = env.database;
    const access = await new RoleBook(db.prisma, db.provider).access('web_shop');
    const hidden = 'query Hidden { products(first: 1) { nodes { id isSales } } }';
    const documents = { [PAGE_ID]: PAGE, [documentId(hidden)]: hidden };
    let refused: DocumentsRefused | undefined;
    try {
      await registerDocuments(db, rowIds.other!, documents, access, true);
    } catch (error) {
      refused = error as DocumentsRefused;
    }
    expect(refused).toBeInstanceOf(DocumentsRefused);
    expect(refused!.refused).toEqual([
      { id: documentId(hidden), reasons: ['Cannot query field "isSales" on type "Product".'] },
    ]);
    expect(await db.prisma.trustedDocument.count({ where: { api_client_id: rowIds.other } })).toBe(0);
    // An id that is not its text's is refused too.
    await expect(registerDocuments(db, rowIds.other!, { [PAGE_ID]: `${PAGE} ` }, undefined, true)).rejects.toThrow(
      /its id is not "sha256:" and the SHA-256 of its text/,
    );
  });

  it('a repeated GET by id answers 304 until the data it read changes', async () => {
    const search = `?${new URLSearchParams({ documentId: PAGE_ID, variables: JSON.stringify(variables()) })}`;
    const first = await send(tokens.enforce, { method: 'GET', search });
    expectPage(first);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const again = await send(tokens.enforce, { method: 'GET', search, headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
    expect(again.body).toBeNull();
    expect(again.headers.get('etag')).toBe(tag);
    await env.database.db.prisma.product.update({
      where: { id: productId },
      data: { reference: `RENAMED-${Date.now()}` },
    });
    const changed = await send(tokens.enforce, { method: 'GET', search, headers: { 'if-none-match': tag } });
    expectPage(changed);
    expect(changed.headers.get('etag')).not.toBe(tag);
  });

  it('log: any document runs; one not registered is logged once, by its id', async () => {
    const other = `query Logged($id: Int!) { product(id: $id) { reference } }`;
    for (let i = 0; i < 2; i++)
      expect((await send(tokens.log, { body: { query: other, variables: variables() } })).status).toBe(200);
    const logged = t.logs().filter((l) => l.documentId === documentId(other));
    expect(logged).toHaveLength(1);
    expect(logged[0]!.msg).toMatch(/has not registered/);
    expectPage(await send(tokens.log, { body: { documentId: PAGE_ID, variables: variables() } }));
  });

  it('counts the uses of each document, and when it was last used', async () => {
    const { db } = env.database;
    const client = await createClient(db.prisma, 'counting', ['read']);
    const row = await db.prisma.apiClient.findUniqueOrThrow({ where: { client_id: client.client_id } });
    await registerDocuments(db, row.id, { [PAGE_ID]: PAGE }, undefined, true);
    const counting = testApp(env.database);
    const { access_token } = await getTokens(counting, client, 'read');
    for (let i = 0; i < 3; i++) {
      const res = await counting.request('/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ documentId: PAGE_ID, variables: variables() }),
      });
      expect(res.status).toBe(200);
    }
    // Written every few seconds, and when the app closes.
    await counting.app.close();
    const counted = await db.prisma.trustedDocument.findUniqueOrThrow({
      where: { api_client_id_id: { api_client_id: row.id, id: PAGE_ID } },
    });
    expect(counted.uses).toBe(3);
    expect(counted.last_used_date).not.toBeNull();
  });
});
