/**
 * Every refusal of /graphql, as a registry: what the client sent, the status, the media type of
 * the body, and the `extensions.code` that says what to do, on both databases. Each body is
 * GraphQL errors (`{"errors":[{"message", "extensions":{"code"}}]}`) in the media type the
 * Accept header negotiates (application/graphql-response+json when accepted, else
 * application/json; JSON for a 406; for a client that takes only text/event-stream, the errors
 * as the stream's one `next` event), every code is documented in docs/reference/graphql.md
 * "Errors". The token's refusals too (no token, a bad, expired or revoked one, a missing scope),
 * with the status and `WWW-Authenticate` challenge they have on every route (RFC 6750); and a
 * database outage, 503 with Retry-After.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { createDatabase } from '../../src/db/client.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { basic, getTokens, postForm, TestClock } from '../support/oauth.ts';
import { ROOT } from '../support/process.ts';
import { streamedResult } from '../support/sse.ts';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const JSON_TYPE = 'application/json';
/** The body limit of the second app of each suite (MAX_BODY_BYTES). */
const SMALL_LIMIT = 2048;

/** The codes docs/reference/graphql.md "Errors" documents. */
const DOCUMENTED = (() => {
  const doc = readFileSync(join(ROOT, 'docs/reference/graphql.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Errors'), doc.indexOf('\n## ', doc.indexOf('\n## Errors') + 1));
  return new Set([...section.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]!));
})();
interface Sent {
  method?: string;
  /** Appended to /graphql (a query string). */
  search?: string;
  accept?: string | null;
  contentType?: string | null;
  body?: BodyInit | null;
  headers?: Record<string, string>;
  /** The app with the small body limit. */
  small?: boolean;
}

interface Case {
  name: string;
  sent: Sent;
  status: number;
  code: string;
  /** The media type of the body (by default the one graphql-http negotiates for `accept`). */
  media?: string;
  headers?: Record<string, string>;
}

const json = (value: unknown) => JSON.stringify(value);
const query = (text: string, extra: Record<string, unknown> = {}) => json({ query: text, ...extra });
const get = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;
const SSE = 'text/event-stream';
const MUTATION = 'mutation { updateUnit(id: 1, input: {}) { id } }';
/** A valid operation padded with spaces to `bytes` bytes of JSON. */
const padded = (bytes: number) => {
  const bare = json({ query: '{ __typename }' });
  return json({ query: `{ __typename }${' '.repeat(bytes - bare.length)}` });
};

const CASES: Case[] = [
  // Not a GraphQL request (graphql-http's request errors, and what is read before them).
  { name: 'a body that is not JSON', sent: { body: '{"query": ' }, status: 400, code: 'BAD_REQUEST' },
  { name: 'a JSON body that is not an object', sent: { body: '"text"' }, status: 400, code: 'BAD_REQUEST' },
  { name: 'an empty body', sent: { body: '' }, status: 400, code: 'BAD_REQUEST' },
  { name: 'a body without "query"', sent: { body: '{}' }, status: 400, code: 'BAD_REQUEST' },
  { name: '"query" not a string', sent: { body: json({ query: 42 }) }, status: 400, code: 'BAD_REQUEST' },
  {
    name: '"variables" not an object',
    sent: { body: query('{ __typename }', { variables: [1] }) },
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: '"operationName" not a string',
    sent: { body: query('{ __typename }', { operationName: 7 }) },
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: '"extensions" not an object',
    sent: { body: query('{ __typename }', { extensions: 'x' }) },
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'the same with Accept: application/json',
    sent: { body: '{"query": ', accept: JSON_TYPE },
    status: 400,
    code: 'BAD_REQUEST',
    media: JSON_TYPE,
  },
  { name: 'GET without a query', sent: { method: 'GET' }, status: 400, code: 'BAD_REQUEST' },
  {
    name: 'GET with "variables" that are not JSON',
    sent: { method: 'GET', search: get({ query: '{ __typename }', variables: '{x' }) },
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a body that is not UTF-8',
    sent: { body: Buffer.from([0x7b, 0x22, 0x71, 0xff, 0xfe, 0x7d]) },
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a URL with malformed percent-encoding',
    sent: { method: 'GET', search: '?query=%7B__typename%7D%ZZ' },
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a malformed Idempotency-Key',
    sent: { body: query(MUTATION), headers: { 'Idempotency-Key': '"not closed' } },
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a JSON array of operations',
    sent: { body: json([{ query: '{ __typename }' }, { query: '{ __typename }' }]) },
    status: 400,
    code: 'BATCH_NOT_SUPPORTED',
  },
  // The operation: which one, and whether this transport carries it.
  {
    name: 'several operations and no operationName',
    sent: { body: query('query A { __typename } query B { __typename }') },
    status: 400,
    code: 'OPERATION_NAME_REQUIRED',
  },
  {
    name: 'an operationName the document does not hold',
    sent: { body: query('query A { __typename }', { operationName: 'B' }) },
    status: 400,
    code: 'UNKNOWN_OPERATION_NAME',
  },
  {
    name: 'a subscription over POST without Accept: text/event-stream',
    sent: { body: query('subscription { changes { cursor } }') },
    status: 400,
    code: 'OPERATION_NOT_SUPPORTED_BY_TRANSPORT',
  },
  {
    name: 'a subscription over GET without Accept: text/event-stream',
    sent: { method: 'GET', search: get({ query: 'subscription { changes { cursor } }' }) },
    status: 400,
    code: 'OPERATION_NOT_SUPPORTED_BY_TRANSPORT',
  },
  {
    name: 'a mutation over GET',
    sent: { method: 'GET', search: get({ query: MUTATION }) },
    status: 405,
    code: 'OPERATION_NOT_SUPPORTED_BY_TRANSPORT',
    headers: { allow: 'POST' },
  },
  {
    name: 'a mutation over GET, Accept: application/json',
    sent: { method: 'GET', search: get({ query: MUTATION }), accept: JSON_TYPE },
    status: 405,
    code: 'OPERATION_NOT_SUPPORTED_BY_TRANSPORT',
    media: JSON_TYPE,
    headers: { allow: 'POST' },
  },
  // The document and its values (these had codes already; listed so that the registry is whole).
  {
    name: 'a document that does not parse',
    sent: { body: query('{ units { ') },
    status: 400,
    code: 'GRAPHQL_PARSE_FAILED',
  },
  {
    name: 'a document that does not fit the schema',
    sent: { body: query('{ noSuchField }') },
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'a variable of the wrong type',
    sent: { body: query('query($id: Int!) { unit(id: $id) { id } }', { variables: { id: 'one' } }) },
    status: 400,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a page size beyond the limit',
    sent: { body: query('{ units(first: 101) { nodes { id } } }') },
    status: 400,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'an operation estimated beyond the cost limit',
    sent: {
      body: query(
        '{ products(first: 100) { nodes { productStructure { items { product { productGroup { products(first: 100) { nodes { id } } } } } } } } }',
      ),
    },
    status: 400,
    code: 'QUERY_COMPLEXITY',
  },
  // Methods and media types.
  ...['PUT', 'DELETE', 'PATCH', 'OPTIONS'].map(
    (method): Case => ({
      name: `${method}`,
      sent: { method, body: method === 'OPTIONS' ? null : query('{ __typename }') },
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      headers: { allow: 'GET, POST' },
    }),
  ),
  {
    name: 'PUT, Accept: application/json',
    sent: { method: 'PUT', accept: JSON_TYPE, body: query('{ __typename }') },
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    media: JSON_TYPE,
  },
  {
    name: 'an Accept header that names nothing /graphql answers',
    sent: { body: query('{ __typename }'), accept: 'text/xml' },
    status: 406,
    code: 'NOT_ACCEPTABLE',
    media: JSON_TYPE,
    headers: { accept: 'application/graphql-response+json; charset=utf-8, application/json; charset=utf-8' },
  },
  ...[
    ['text/plain', 'Content-Type: text/plain'],
    [null, 'no Content-Type'],
    ['application/json; charset=latin1', 'JSON in another charset'],
    ['application/x-www-form-urlencoded', 'a form'],
  ].map(
    ([contentType, name]): Case => ({
      name: name!,
      sent: { body: query('{ __typename }'), contentType },
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    }),
  ),
  // Server-Sent Events: the same checks before the stream starts.
  {
    name: 'SSE: a body that is not JSON',
    sent: { body: '{"query": ', accept: SSE },
    status: 400,
    code: 'BAD_REQUEST',
    media: SSE,
  },
  {
    name: 'SSE: GET with "variables" that are not JSON (was a 500)',
    sent: { method: 'GET', search: get({ query: '{ __typename }', variables: '{x' }), accept: SSE },
    status: 400,
    code: 'BAD_REQUEST',
    media: SSE,
  },
  {
    name: 'SSE: a JSON array of operations',
    sent: { body: json([{ query: '{ __typename }' }]), accept: SSE },
    status: 400,
    code: 'BATCH_NOT_SUPPORTED',
    media: SSE,
  },
  {
    name: 'SSE: Content-Type: text/plain',
    sent: { body: query('{ __typename }'), contentType: 'text/plain', accept: SSE },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    media: SSE,
  },
  {
    name: 'SSE and JSON accepted: GraphQL media type when named',
    sent: { body: json([]), accept: `${SSE}, ${GRAPHQL_RESPONSE}` },
    status: 400,
    code: 'BATCH_NOT_SUPPORTED',
    media: GRAPHQL_RESPONSE,
  },
  // The body limit, wherever the body is read first.
  {
    name: 'a body one byte over MAX_BODY_BYTES',
    sent: { body: padded(SMALL_LIMIT + 1), small: true },
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    headers: { connection: 'close' },
  },
  {
    name: 'a body over MAX_BODY_BYTES, Accept: application/json',
    sent: { body: padded(SMALL_LIMIT + 1), small: true, accept: JSON_TYPE },
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    media: JSON_TYPE,
  },
  {
    name: 'a body over MAX_BODY_BYTES with an Idempotency-Key (read by the idempotency layer)',
    sent: { body: padded(SMALL_LIMIT + 1), small: true, headers: { 'Idempotency-Key': 'big-body' } },
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'SSE: a body over MAX_BODY_BYTES',
    sent: { body: padded(SMALL_LIMIT + 1), small: true, accept: SSE },
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    media: SSE,
  },
];

/** The media type graphql-http negotiates for an Accept header (its rule: the first it can serve). */
function negotiated(accept: string | null | undefined): string {
  for (const entry of (accept ?? '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const type = entry.split(';')[0];
    if (type === GRAPHQL_RESPONSE) return GRAPHQL_RESPONSE;
    if (type === JSON_TYPE || type === 'application/*' || type === '*/*') return JSON_TYPE;
  }
  return JSON_TYPE;
}

/** What every refusal must be: GraphQL errors, each with a message and a documented SCREAMING_SNAKE_CASE code. */
function expectGraphQLErrors(res: { status: number; contentType: string; text: string }, code: string, media: string) {
  expect(res.contentType.split(';')[0], res.text).toBe(media);
  const body = JSON.parse(media === SSE ? streamedResult(res.text) : res.text) as {
    errors: { message: string; extensions: { code: string } }[];
  };
  expect(Object.keys(body), res.text).toEqual(['errors']);
  expect(body.errors.length, res.text).toBeGreaterThan(0);
  for (const error of body.errors) {
    expect(typeof error.message === 'string' && error.message.length > 10, res.text).toBe(true);
    expect(error.extensions.code, res.text).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
    expect(DOCUMENTED, `${error.extensions.code} is not in docs/reference/graphql.md "Errors"`).toContain(
      error.extensions.code,
    );
  }
  expect(body.errors[0]!.extensions.code, res.text).toBe(code);
}

describe.each(providers)('every 4xx of /graphql on %s: GraphQL errors with a code', (provider) => {
  let env: GraphQLTestEnv;
  /** The same database, MAX_BODY_BYTES 2048. */
  let small: TestApp;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    small = testApp(env.database, { maxBodyBytes: SMALL_LIMIT });
    await env.gql('{ __typename }');
  });
  afterAll(async () => env?.database.cleanup());

  async function send(sent: Sent, token: string | null = env.token) {
    const headers: Record<string, string> = { ...sent.headers };
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (sent.accept !== null) headers.Accept = sent.accept ?? GRAPHQL_RESPONSE;
    const method = sent.method ?? 'POST';
    const body = method === 'GET' || method === 'HEAD' ? undefined : (sent.body ?? undefined);
    if (body !== undefined && sent.contentType !== null) headers['Content-Type'] = sent.contentType ?? JSON_TYPE;
    const res = await (sent.small ? small : env.t).request(`/graphql${sent.search ?? ''}`, { method, headers, body });
    return {
      status: res.status,
      headers: res.headers,
      contentType: res.headers.get('content-type') ?? '',
      text: await res.text(),
    };
  }

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const res = await send(c.sent);
    expect(res.status, res.text).toBe(c.status);
    expectGraphQLErrors(
      res,
      c.code,
      c.media ?? negotiated(c.sent.accept === undefined ? GRAPHQL_RESPONSE : c.sent.accept),
    );
    for (const [name, value] of Object.entries(c.headers ?? {})) expect(res.headers.get(name), name).toBe(value);
  });

  describe('Idempotency-Key refusals of a mutation', () => {
    it('the same key with another request: 422 IDEMPOTENCY_KEY_REUSED', async () => {
      const key = `reused-${provider}-${Date.now()}`;
      const first = await send({ body: query(MUTATION), headers: { 'Idempotency-Key': key } });
      expect(first.status, first.text).toBe(200);
      const res = await send({
        body: query('mutation { updateUnit(id: 2, input: {}) { id } }'),
        headers: { 'Idempotency-Key': key },
      });
      expect(res.status, res.text).toBe(422);
      expectGraphQLErrors(res, 'IDEMPOTENCY_KEY_REUSED', GRAPHQL_RESPONSE);
    });

    it('the same request while the first still runs: 409 IDEMPOTENCY_KEY_IN_USE with Retry-After', async () => {
      const key = `in-use-${provider}-${Date.now()}`;
      const body = query(MUTATION);
      const prisma = env.database.db.prisma;
      const client = await prisma.apiClient.findFirstOrThrow({ where: { name: 'erp' } });
      // The request claimed and still running, as src/http/idempotency.ts records one (its
      // fingerprint: method, path and query, content type, body).
      const fingerprint = createHash('sha256')
        .update(`POST\n/graphql\n${JSON_TYPE}\n`)
        .update(body)
        .digest('base64url');
      await prisma.idempotencyKey.create({
        data: { api_client_id: client.id, key, fingerprint, state: 'running', created_at: new Date() },
      });
      const res = await send({ body, headers: { 'Idempotency-Key': key } });
      expect(res.status, res.text).toBe(409);
      expectGraphQLErrors(res, 'IDEMPOTENCY_KEY_IN_USE', GRAPHQL_RESPONSE);
      expect(res.headers.get('retry-after')).toBe('1');
    });
  });

  it('runs a mutation over plain HTTP when the client takes JSON besides a stream (a stream would refuse it)', async () => {
    const res = await send({ body: query(MUTATION), accept: `${SSE}, ${JSON_TYPE}` });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ data: { updateUnit: { id: 1 } } });
    // Over the stream alone it is refused, with the code that says to send it as a plain POST.
    const streamed = await send({ body: query(MUTATION), accept: SSE });
    expect(streamed.contentType).toMatch(/^text\/event-stream/);
    expect(streamed.text).toContain('"code":"OPERATION_NOT_SUPPORTED_BY_TRANSPORT"');
  });

  it('covers every 4xx status /graphql gives before the token is read (409 and 422 above)', () => {
    const statuses = new Set(CASES.map((c) => c.status));
    expect([...statuses].sort()).toEqual([400, 405, 406, 413, 415]);
  });

  describe("the token's refusals: GraphQL errors, with RFC 6750's status and challenge", () => {
    const REALM = 'Bearer realm="master-data"';
    const challenge = (error: string, description: string, scope = '') =>
      `${REALM}, error="${error}", error_description="${description}"${scope && `, scope="${scope}"`}`;
    const needsToken = 'the Bearer scheme needs a token: Authorization: Bearer <token>';

    it.each([
      ['no token', null, 401, 'UNAUTHENTICATED', REALM],
      ['`Bearer` and no token', '', 400, 'BAD_REQUEST', challenge('invalid_request', needsToken)],
      [
        'a malformed token',
        'not a token',
        401,
        'UNAUTHENTICATED',
        challenge('invalid_token', 'malformed bearer token'),
      ],
      [
        'an unknown token',
        'mda_not-a-real-token',
        401,
        'UNAUTHENTICATED',
        challenge('invalid_token', 'unknown access token'),
      ],
    ] as const)('%s: %s %s with the challenge', async (_name, token, status, code, wwwAuthenticate) => {
      for (const [method, search] of [
        ['POST', ''],
        ['GET', get({ query: '{ __typename }' })],
      ]) {
        const res = await send({ method, search, body: query('{ __typename }') }, token);
        expect(res.status, res.text).toBe(status);
        expectGraphQLErrors(res, code, GRAPHQL_RESPONSE);
        expect(res.headers.get('www-authenticate')).toBe(wwwAuthenticate);
      }
      // In the media type the client takes: JSON, or an event stream for a GraphQL over SSE client.
      const json = await send({ body: query('{ __typename }'), accept: JSON_TYPE }, token);
      expect(json.status).toBe(status);
      expectGraphQLErrors(json, code, JSON_TYPE);
      const streamed = await send({ body: query('subscription { changes { cursor } }'), accept: SSE }, token);
      expect(streamed.status).toBe(status);
      expectGraphQLErrors(streamed, code, SSE);
      expect(streamed.headers.get('www-authenticate')).toBe(wwwAuthenticate);
    });

    it('the message says what to do', async () => {
      const res = await send({ body: query('{ __typename }') }, null);
      expect(JSON.parse(res.text).errors[0].message).toBe('an access token is required: Authorization: Bearer <token>');
    });

    it('an expired token, and a revoked one: 401 UNAUTHENTICATED with invalid_token, so that clients refresh', async () => {
      const clock = new TestClock();
      const clocked = testApp(env.database, {}, { clock });
      onTestFinished(() => clocked.app.close());
      const client = await createClient(env.database.db.prisma, `expiring-${provider}`, ['read']);
      const sendBy = async (token: string) => {
        const res = await clocked.request('/graphql', {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': JSON_TYPE, Accept: GRAPHQL_RESPONSE },
          body: query('{ __typename }'),
        });
        return {
          status: res.status,
          headers: res.headers,
          contentType: res.headers.get('content-type') ?? '',
          text: await res.text(),
        };
      };
      const expiring = (await getTokens(clocked, client)).access_token;
      expect((await sendBy(expiring)).status).toBe(200);
      clock.advance(3600);
      const expired = await sendBy(expiring);
      expect(expired.status, expired.text).toBe(401);
      expectGraphQLErrors(expired, 'UNAUTHENTICATED', GRAPHQL_RESPONSE);
      expect(expired.headers.get('www-authenticate')).toMatch(
        /^Bearer realm="master-data", error="invalid_token", error_description=".*expired.*"$/,
      );

      const revoking = (await getTokens(clocked, client)).access_token;
      expect((await sendBy(revoking)).status).toBe(200);
      const revoke = await postForm(
        clocked,
        '/oauth/revoke.php',
        { token: revoking },
        { Authorization: basic(client.client_id, client.client_secret) },
      );
      expect(revoke.status).toBe(200);
      const revoked = await sendBy(revoking);
      expect(revoked.status, revoked.text).toBe(401);
      expectGraphQLErrors(revoked, 'UNAUTHENTICATED', GRAPHQL_RESPONSE);
      expect(revoked.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    });

    it('a token without the read scope: 403 FORBIDDEN with insufficient_scope and scope="read"', async () => {
      const client = await createClient(env.database.db.prisma, `write-only-${provider}`, ['write']);
      const res = await send({ body: query('{ __typename }') }, (await getTokens(env.t, client)).access_token);
      expect(res.status, res.text).toBe(403);
      expectGraphQLErrors(res, 'FORBIDDEN', GRAPHQL_RESPONSE);
      expect(res.headers.get('www-authenticate')).toBe(
        challenge('insufficient_scope', 'this operation needs the read scope', 'read'),
      );
    });

    it.each([
      [GRAPHQL_RESPONSE, GRAPHQL_RESPONSE],
      [JSON_TYPE, JSON_TYPE],
    ])(
      'a mutation with a read-only token (Accept: %s): 403 FORBIDDEN with scope="write", nothing written',
      async (accept, media) => {
        const before = await env.database.db.prisma.unit.findUniqueOrThrow({ where: { id: 1 } });
        const res = await send(
          { body: query('mutation { updateUnit(id: 1, input: { reference: "READ-ONLY" }) { id } }'), accept },
          env.readToken,
        );
        expect(res.status, res.text).toBe(403);
        expectGraphQLErrors(res, 'FORBIDDEN', media);
        expect(res.headers.get('www-authenticate')).toBe(
          challenge('insufficient_scope', 'mutations need the write scope', 'write'),
        );
        expect(await env.database.db.prisma.unit.findUniqueOrThrow({ where: { id: 1 } })).toEqual(before);
      },
    );

    it("REST keeps its own shape: RFC 6750's body on /units", async () => {
      const res = await env.t.request('/units');
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    });
  });

  it('a database outage: 503 SERVICE_UNAVAILABLE with Retry-After, in the negotiated media type', async () => {
    // The statement waits for a lock held elsewhere no longer than the statement timeout.
    const db = await createDatabase(env.database.target, { connectMs: 500, statementMs: 300 });
    const locked = testApp({ ...env.database, db });
    const client = await createClient(env.database.db.prisma, `outage-${provider}`, ['read', 'write']);
    // Checked now, the token is trusted from memory for a few seconds: the mutation reaches the data.
    const token = (await getTokens(locked, client)).access_token;
    const holder = await lockUnits(provider, env.database.target);
    try {
      for (const accept of [GRAPHQL_RESPONSE, JSON_TYPE]) {
        const res = await locked.request('/graphql', {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': JSON_TYPE, Accept: accept },
          body: query('mutation { updateUnit(id: 1, input: { reference: "LOCKED-OUT" }) { id } }'),
        });
        const answer = {
          status: res.status,
          contentType: res.headers.get('content-type') ?? '',
          text: await res.text(),
        };
        expect(answer.status, answer.text).toBe(503);
        expectGraphQLErrors(answer, 'SERVICE_UNAVAILABLE', accept);
        expect(res.headers.get('retry-after')).toBe('5');
      }
    } finally {
      await holder.release();
      await locked.app.close();
      await db.close();
    }
  });
});

/** Holds a lock on the units table from another connection, as another process would, until released. */
async function lockUnits(
  provider: string,
  target: { url: string; sqliteFile?: string },
): Promise<{ release(): Promise<void> }> {
  if (provider === 'sqlite') {
    const other = new Sqlite(target.sqliteFile!);
    other.exec('BEGIN IMMEDIATE');
    return {
      release: async () => {
        other.exec('ROLLBACK');
        other.close();
      },
    };
  }
  const other = new pg.Client({ connectionString: target.url });
  await other.connect();
  await other.query('BEGIN');
  await other.query('LOCK TABLE units IN ACCESS EXCLUSIVE MODE');
  return {
    release: async () => {
      await other.query('ROLLBACK');
      await other.end();
    },
  };
}
