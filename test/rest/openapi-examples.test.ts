/**
 * The examples of error answers in the OpenAPI document (GET /openapi.json, what /docs draws) are
 * what the service answers: for every example of every error response the document holds, the
 * request that gets that answer is sent to the app over a seeded database and its body compared
 * with the example, member for member. A new error example without a request here fails, so
 * that no example goes unchecked.
 */
import type { OpenAPIObject, ResponseObject } from 'openapi3-ts/oas31';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { type ErrorCode, serviceUnavailable, shapeB } from '../../src/http/errors.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { getTokens } from '../support/oauth.ts';

let env: GraphQLTestEnv;
/** A token with the write scope only: a GET with it is refused for want of `read`. */
let writeOnlyToken: string;

type Send = (
  path: string,
  init?: { method?: string; token?: string | null; body?: string; headers?: object },
) => Promise<Response>;
const send: Send = (path, { method = 'GET', token = env.token, body, headers = {} } = {}) =>
  env.t.request(path, {
    method,
    body,
    headers: {
      ...(token === null ? {} : { Authorization: token === '' ? 'Bearer' : `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
  });
const json = (value: unknown) => JSON.stringify(value);

const conflict = () =>
  send('/customers/2', {
    method: 'PATCH',
    body: json({ data: { type: 'customers', id: 2, attributes: { reference: 'CUS000001' } } }),
  });
const typeMismatch = () =>
  send('/customers/1', { method: 'PATCH', body: json({ data: { type: 'products', attributes: {} } }) });
const emptyBearer = () => send('/customers', { token: '' });

/** The request behind each example, by response and error code. */
const REQUESTS: Record<string, () => Promise<Response>> = {
  'BadRequest invalid_parameter': () => send('/customers?per_page=100'),
  'BadRequest invalid_request': emptyBearer,
  'BadToken invalid_request': () => send('/product_structures', { method: 'POST', token: '' }),
  'BadRequestBody invalid_json': () => send('/units', { method: 'POST', body: '' }),
  'BadRequestBody invalid_request': () => send('/units', { method: 'POST', token: '', body: '{}' }),
  'Unauthorized invalid_request': () => send('/customers', { token: null }),
  'ForbiddenScope insufficient_scope': () => send('/customers', { token: writeOnlyToken }),
  // The two 403s of a write: an operation always refused, and a read-only token.
  'Forbidden forbidden': () =>
    send('/product_structures', {
      method: 'POST',
      body: json({ data: { type: 'product_structures', attributes: { quantity: 1 } } }),
    }),
  'Forbidden insufficient_scope': () =>
    send('/units/1', {
      method: 'PATCH',
      token: env.readToken,
      body: json({ data: { type: 'units', attributes: {} } }),
    }),
  'MethodNotAllowed method_not_allowed': () => send('/customers/1', { method: 'DELETE' }),
  'Conflict conflict': conflict,
  'ConflictOnPost conflict': conflict,
  'StructureConflict conflict': conflict,
  'StructureConflictOnPost conflict': conflict,
  'TypeMismatch type_mismatch': typeMismatch,
  'TypeMismatchOnPost type_mismatch': typeMismatch,
  'ItemsConflict type_mismatch': typeMismatch,
  'ItemsConflictOnPost type_mismatch': typeMismatch,
  'PreconditionFailed precondition_failed': async () => {
    const tag = (await send('/customers/1')).headers.get('etag')!;
    const rename = (name: string) =>
      send('/customers/1', {
        method: 'PATCH',
        headers: { 'If-Match': tag },
        body: json({ data: { type: 'customers', attributes: { name } } }),
      });
    expect((await rename('Renamed once')).status).toBe(200);
    return rename('Renamed twice');
  },
  'CursorExpired cursor_expired': async () => {
    // What a retention purge leaves: entries up to 5400 gone.
    await env.database.db.prisma.$executeRawUnsafe(
      'INSERT INTO "change_log_horizon" ("id", "horizon") VALUES (1, 5400) ON CONFLICT ("id") DO UPDATE SET "horizon" = 5400',
    );
    return send('/changes?after=1200');
  },
  'IdempotencyKeyReused idempotency_key_reused': async () => {
    const add = (reference: string) =>
      send('/units', {
        method: 'POST',
        headers: { 'Idempotency-Key': 'order-4711' },
        body: json({ data: { type: 'units', attributes: { reference } } }),
      });
    expect((await add('crate-1')).status).toBe(201);
    return add('crate-2');
  },
  'PayloadTooLarge payload_too_large': () =>
    send('/units', { method: 'POST', body: json({ data: { padding: 'x'.repeat(1024 * 1024) } }) }),
  'UnsupportedMediaType unsupported_media_type': () =>
    send('/units', { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain' } }),
  // An outage is not made here: test/outage.test.ts makes real ones and expects this very answer.
  'ServiceUnavailable service_unavailable': async () => {
    const { status, code, message, headers } = serviceUnavailable();
    return new Response(json(shapeB(status, code as ErrorCode, message)), { status, headers });
  },
};

interface Example {
  key: string;
  status: number;
  value: { error: string | { code: string; http_code: number } };
}

/** Every example of an error answer among the document's shared responses. */
function errorExamples(document: OpenAPIObject): Example[] {
  return Object.entries(document.components?.responses ?? {}).flatMap(([name, response]) => {
    const media = (response as ResponseObject).content?.['application/json'];
    const values = [
      ...(media?.example === undefined ? [] : [media.example]),
      ...Object.values(media?.examples ?? {}).map((e) => (e as { value: unknown }).value),
    ] as Example['value'][];
    return values.map((value) => {
      const code = typeof value.error === 'string' ? value.error : value.error.code;
      // A bearer error's body carries no status of its own.
      const status = typeof value.error === 'string' ? Number.NaN : value.error.http_code;
      return { key: `${name} ${code}`, status, value };
    });
  });
}

describe('the error examples of the OpenAPI document', () => {
  let document: OpenAPIObject;
  beforeAll(async () => {
    env = await graphqlEnv('sqlite');
    writeOnlyToken = (await getTokens(env.t, await createClient(env.database.db.prisma, 'feeder', ['write'])))
      .access_token;
    document = (await (await env.t.request('/openapi.json')).json()) as OpenAPIObject;
  }, 60_000);
  afterAll(async () => env?.database.cleanup());

  it('each have a request here that gets them', () => {
    const keys = errorExamples(document).map((e) => e.key);
    expect(keys.filter((key) => !(key in REQUESTS))).toEqual([]);
    expect(Object.keys(REQUESTS).filter((key) => !keys.includes(key))).toEqual([]);
  });

  it('are what the service answers, word for word', async () => {
    const answers = new Map<() => Promise<Response>, Promise<{ status: number; body: unknown }>>();
    const differences: string[] = [];
    for (const example of errorExamples(document)) {
      const request = REQUESTS[example.key];
      if (!request) continue;
      if (!answers.has(request))
        answers.set(
          request,
          request().then(async (res) => ({ status: res.status, body: await res.json() })),
        );
      const answer = await answers.get(request)!;
      if (json(answer.body) !== json(example.value))
        differences.push(`${example.key}: the example ${json(example.value)}, the answer ${json(answer.body)}`);
      if (!Number.isNaN(example.status) && answer.status !== example.status)
        differences.push(`${example.key}: http_code ${example.status}, status ${answer.status}`);
    }
    expect(differences).toEqual([]);
  });

  it('the 403 of a write shows both answers a client gets', async () => {
    const forbidden = document.components!.responses!.Forbidden as ResponseObject;
    const shown = Object.values(forbidden.content!['application/json']!.examples!).map((e) => json((e as any).value));
    const readOnly = await send('/customers/1', { method: 'PATCH', token: env.readToken, body: '{}' });
    const refused = await send('/product_structures', { method: 'POST', body: '{}' });
    expect([readOnly.status, refused.status]).toEqual([403, 403]);
    expect(shown.sort()).toEqual([json(await readOnly.json()), json(await refused.json())].sort());
  });

  it('the 404 shape shows the service wording', async () => {
    const schema = (document.components!.schemas!.ErrorA as any).properties.errors.properties.detail;
    const answer = (await (await send('/customers/987654321')).json()) as { errors: { detail: string } };
    const digitless = (text: string) => text.replace(/\d+/g, 'N');
    expect(schema.examples.map(digitless)).toEqual([digitless(answer.errors.detail)]);
  });
});
