/**
 * GraphQL over HTTP at /graphql: POST and GET (queries only), Server-Sent Events for a client that
 * asks for them (./sse.ts), GraphiQL for browsers, the SDL at /graphql/schema.graphql.
 *
 * The GraphQL over HTTP spec's rules are kept here: the media type an Accept header negotiates
 * (application/graphql-response+json: request errors are 400; application/json: 200), a request
 * that is not one (no JSON, no query, wrong types: 400; another content type: 415; no media type
 * it can serve: 406), no mutations over GET (405). graphql-http's audits check them
 * (test/graphql/http.test.ts). The operation goes through the one pipeline (./pipeline.ts). The
 * body is read straight from the Node request (../http/body.ts); an answer without errors is
 * serialized as plain JSON (../http/json-body.ts), large lists in chunks.
 */
import { createHash } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { BearerRefusal, bearerAuth, isGraphiQLPageRequest } from '../auth/bearer.ts';
import type { BearerAuth, TokenService } from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { readBody } from '../http/body.ts';
import { type HttpError, JSON_CONTENT_TYPE, serviceUnavailable } from '../http/errors.ts';
import { decodeUtf8 } from '../http/input.ts';
import { jsonBody } from '../http/json-body.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Locale } from '../resources/types.ts';
import { errorBody, negotiated, successMediaType } from './answers.ts';
import { SERVICE_UNAVAILABLE } from './errors.ts';
import { GRAPHIQL_PAGE_HEADERS, graphiqlHtml } from './graphiql.ts';
import {
  GraphQLPipeline,
  type OperationRequest,
  type PipelineOptions,
  type PipelinePlugin,
  type ReadyOperation,
  Refusal,
} from './pipeline.ts';
import { schemaFor, sdlOf } from './role-schema.ts';
import type { TrustedDocuments } from './trusted-documents.ts';
import { sseAnswer } from './sse.ts';
import { type GraphQLWebSocket, graphqlWebSocket } from './websocket.ts';

export interface GraphQLRoutesOptions {
  db: Database;
  /** What subscriptions need (./subscriptions.ts). */
  live: PipelineOptions['live'];
  /** Checks the tokens of WebSocket connections. */
  tokens: TokenService;
  basePath: string;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  localeChain: readonly Locale[];
  introspection: boolean;
  maxBodyBytes: number;
  /** A working access token to pre-fill GraphiQL's headers with, when there is one to give (the demo client). */
  graphiqlToken?: (c: Context) => Promise<string | undefined>;
  /** The clients' trusted documents (./trusted-documents.ts). */
  documents: TrustedDocuments;
}

/** Operation names become metric labels: bounded, so that clients cannot grow the label set without end. */
const MAX_OPERATION_LABELS = 200;

export interface GraphQLTransports {
  /** GraphQL over HTTP, and over Server-Sent Events (`Accept: text/event-stream`). */
  routes: Hono;
  /** GraphQL over WebSocket (graphql-ws), on the same path. */
  websocket: GraphQLWebSocket;
  /**
   * The answer to an error thrown on the way to /graphql (by this route or by the middleware
   * before it: no token or a bad one, a body over the limit, an Idempotency-Key refused, a
   * malformed URL, a database outage), as GraphQL errors with a code, with the status and the
   * headers (`WWW-Authenticate`, `Retry-After`) it has on every route; undefined for another path.
   * app.ts hands over an HttpError or a BearerRefusal only (anything else is a 500 by then).
   */
  answerError(c: Context, error: HttpError | BearerRefusal): Response | undefined;
}

/** The operations' metrics, as a plugin of the pipeline: every transport's. */
function operationMetrics(metrics: Metrics): PipelinePlugin {
  const operationLabels = new Set<string>();
  const operationLabel = (name: string | undefined) => {
    if (!name) return 'anonymous';
    if (operationLabels.has(name)) return name;
    if (operationLabels.size >= MAX_OPERATION_LABELS) return 'other';
    operationLabels.add(name);
    return name;
  };
  return {
    done(request, { name, type, outcome }) {
      const labels = { operation: operationLabel(name), type: type ?? (outcome === 'rejected' ? 'unknown' : 'query') };
      metrics.graphqlOperations.inc({ ...labels, outcome });
      if (request.startedAt !== undefined)
        metrics.graphqlDuration.observe(labels, (performance.now() - request.startedAt) / 1000);
    },
  };
}

export function graphqlRoutes(options: GraphQLRoutesOptions): GraphQLTransports {
  const pipeline = new GraphQLPipeline({ ...options, plugins: [options.documents, operationMetrics(options.metrics)] });
  const graphqlPath = `${options.basePath}/graphql`;

  let graphiqlPage: { html: string; token?: string } | undefined;
  const app = new Hono();

  // The SDL of the schema the caller would use: the full one without a token (the published
  // schema), its role's with one (./role-schema.ts).
  app.get('/graphql/schema.graphql', async (c) => {
    const reader = await sdlReader(c, options.tokens);
    return c.body(sdlOf(schemaFor(reader?.access)), 200, { 'Content-Type': 'text/plain; charset=utf-8' });
  });

  app.on(['GET', 'HEAD', 'POST'], '/graphql', async (c) => {
    if (c.req.method !== 'POST' && isGraphiQLPageRequest(c)) {
      const token = await options.graphiqlToken?.(c);
      if (!graphiqlPage || graphiqlPage.token !== token)
        graphiqlPage = { html: await graphiqlHtml(new URL(c.req.url).pathname, token), token };
      return c.html(graphiqlPage.html, 200, GRAPHIQL_PAGE_HEADERS);
    }
    // Read before anything else: an oversized body is a 413 and a body that is not UTF-8 its own
    // 400, whatever else the request holds.
    const text = c.req.method === 'POST' ? await readText(c, options.maxBodyBytes) : null;
    if (text === undefined) return refuse(c, 400, 'BAD_REQUEST', 'the request body is not valid UTF-8');
    // A JSON array of operations would multiply every per-request limit by its length.
    if (text?.trimStart().startsWith('['))
      return refuse(
        c,
        400,
        'BATCH_NOT_SUPPORTED',
        'batched operations (a JSON array) are not supported: send one operation per request',
      );
    const params = requestParams(c, text);
    if (params instanceof Response) return params;
    // A literal of one shape, its members named (not spread from the body: what else a client
    // sends stays out).
    const request: OperationRequest = {
      auth: c.get('auth'),
      transport: c.req.method === 'GET' ? 'get' : 'post',
      query: params.query,
      documentId: params.documentId,
      operationName: params.operationName,
      variables: params.variables,
      extensions: params.extensions,
      beforeCommit: c.get('beforeCommit'),
      startedAt: performance.now(),
      orPost: false,
    };
    const accept = c.req.header('accept') ?? '';
    if (accept.includes('text/event-stream')) {
      // A mutation posted by a client that takes JSON too goes over plain HTTP: a stream refuses it.
      const streamed = {
        ...request,
        transport: 'sse' as const,
        orPost: request.transport === 'post' && TAKES_JSON.test(accept),
      };
      const ready = await pipeline.prepare(streamed);
      // A refusal with a status of its own (a mutation without the write scope: 403 and its
      // challenge) goes as plain HTTP to a client that takes JSON, as a mutation does.
      const plain =
        ready instanceof Refusal
          ? streamed.orPost && ready.status !== undefined
          : ready.operation.operation === 'mutation';
      if (!plain) return sseAnswer(pipeline, streamed, ready);
      return answered(c, pipeline, streamed, ready, successMediaType(accept));
    }
    return answerOverHttp(c, pipeline, request);
  });

  app.all('/graphql', (c) =>
    refuse(c, 405, 'METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on /graphql: use GET or POST`, {
      Allow: 'GET, POST',
    }),
  );
  return {
    routes: app,
    websocket: graphqlWebSocket(pipeline, options.tokens, graphqlPath, options.maxBodyBytes),
    answerError: (c, error) => {
      if (c.req.path !== graphqlPath) return undefined;
      if (error instanceof BearerRefusal)
        return refuse(c, error.status, BEARER_CODES[error.status], error.description, {
          'www-authenticate': error.challenge,
        });
      return refuse(
        c,
        error.status,
        HTTP_ERROR_CODES[error.code] ?? error.code.toUpperCase(),
        error.message,
        error.headers,
      );
    },
  };
}

/**
 * Who asks for the SDL: the token's client, when there is one (the route is open while
 * introspection is on: the middleware has not checked a token it carries); undefined without a
 * token. A token that is not valid is refused as on every protected route (RFC 6750), not taken
 * for none: its client would read a schema that is not its own.
 */
async function sdlReader(c: Context, tokens: TokenService): Promise<BearerAuth | undefined> {
  return c.get('auth') ?? bearerAuth(tokens, c.req.header('authorization') ?? '');
}

/** What a GraphQL request says: its document (or its id), operation name, variables and extensions. */
type RequestParams = Pick<OperationRequest, 'query' | 'documentId' | 'operationName' | 'variables' | 'extensions'>;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The request's parameters, from the query string (GET) or the JSON body (POST); or the answer
 * that refuses a request that is not a GraphQL request: 405 for another method, 415 for a body
 * that is not JSON in UTF-8, 400 saying what is wrong with the rest.
 */
function requestParams(c: Context, text: string | null): RequestParams | Response {
  const method = c.req.method;
  if (method !== 'GET' && method !== 'POST') {
    const [code, message] = transportProblem(405, method);
    return refuse(c, 405, code, message, { allow: 'GET, POST' });
  }
  let given: Record<string, unknown>;
  if (method === 'GET') {
    const search = new URL(c.req.url).searchParams;
    given = {};
    for (const name of ['query', 'documentId', 'operationName'])
      if (search.has(name)) given[name] = search.get(name) ?? undefined;
    for (const name of ['variables', 'extensions']) {
      const value = search.get(name);
      if (!value) continue;
      try {
        given[name] = JSON.parse(value);
      } catch {
        return refuse(c, 400, 'BAD_REQUEST', REQUEST_ERRORS.url);
      }
    }
  } else {
    const [mediaType, charset = 'charset=utf-8'] = (c.req.header('content-type') ?? '')
      .replace(/\s/g, '')
      .toLowerCase()
      .split(';');
    if (mediaType !== 'application/json' || charset !== 'charset=utf-8') {
      const [code, message] = transportProblem(415, method);
      return refuse(c, 415, code, message);
    }
    if (!text) return refuse(c, 400, 'BAD_REQUEST', REQUEST_ERRORS.body);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refuse(c, 400, 'BAD_REQUEST', REQUEST_ERRORS.json);
    }
    if (!isObject(body)) return refuse(c, 400, 'BAD_REQUEST', REQUEST_ERRORS.object);
    given = body;
  }
  const problem = paramsProblem(given);
  if (problem) return refuse(c, 400, 'BAD_REQUEST', problem);
  return given as RequestParams;
}

/** What is wrong with a request's parameters (their types), or undefined; null members are taken for not given, as the spec allows. */
function paramsProblem(given: Record<string, unknown>): string | undefined {
  const { query, documentId, variables, operationName, extensions } = given;
  // A document's id may stand for it: `documentId`, or Apollo's persisted query in `extensions`.
  const persisted = isObject(extensions) && extensions.persistedQuery !== undefined;
  if (query == null && documentId == null && !persisted) return REQUEST_ERRORS.query;
  if (query != null && typeof query !== 'string') return REQUEST_ERRORS.queryType;
  if (documentId != null && typeof documentId !== 'string') return REQUEST_ERRORS.documentIdType;
  if (variables != null && !isObject(variables)) return REQUEST_ERRORS.variables;
  if (operationName != null && typeof operationName !== 'string') return REQUEST_ERRORS.operationName;
  if (extensions != null && !isObject(extensions)) return REQUEST_ERRORS.extensions;
  const apq = persisted ? extensions.persistedQuery : undefined;
  if (persisted && (!isObject(apq) || typeof apq.sha256Hash !== 'string')) return REQUEST_ERRORS.persistedQuery;
  for (const name of ['query', 'documentId', 'variables', 'operationName', 'extensions'])
    if (given[name] === null) delete given[name];
  return undefined;
}

/** A query or mutation over plain HTTP: its result, or its refusal, in the negotiated media type. */
async function answerOverHttp(c: Context, pipeline: GraphQLPipeline, request: OperationRequest): Promise<Response> {
  const media = negotiated(c.req.header('accept') ?? null);
  if (!media) {
    const [code, message] = transportProblem(406, c.req.method);
    return refuse(c, 406, code, message, {
      accept: 'application/graphql-response+json; charset=utf-8, application/json; charset=utf-8',
    });
  }
  return answered(c, pipeline, request, await pipeline.prepare(request), media);
}

/** The answer over plain HTTP to a request the pipeline prepared, or refused. */
async function answered(
  c: Context,
  pipeline: GraphQLPipeline,
  request: OperationRequest,
  ready: ReadyOperation | Refusal,
  media: string,
): Promise<Response> {
  if (ready instanceof Refusal) {
    // Request errors: 400 where the client takes application/graphql-response+json, 200 in
    // plain JSON (the spec's rule for clients that predate it).
    const status = ready.status ?? (media === JSON_CONTENT_TYPE ? 200 : 400);
    return c.body(JSON.stringify({ errors: ready.errors }), status as 200, {
      ...ready.headers,
      'content-type': media,
      'x-content-type-options': 'nosniff',
    });
  }
  const result = await pipeline.execute(request, ready);
  const errors = result.errors ?? [];
  // A database outage is the service's state, not the query's: answer it like every other route.
  if (errors.some((e) => e.extensions?.code === SERVICE_UNAVAILABLE)) throw serviceUnavailable();
  // A result without errors holds no Error: serialized plainly, large lists in chunks (src/http/json-body.ts).
  const body = errors.length === 0 ? jsonBody(result) : JSON.stringify(result);
  if (request.transport === 'get' && namesDocument(request)) return cacheable(c, request, body, media);
  return c.body(body, 200, { 'content-type': media });
}

/** Whether a request names a registered document (by `documentId`, or APQ's hash). */
function namesDocument(request: OperationRequest): boolean {
  return request.documentId !== undefined || request.extensions?.persistedQuery !== undefined;
}

/**
 * A GET of a document by id, answered with an entity tag of the role, the document, the
 * variables and the answer: a client that sends it back (`If-None-Match`) gets 304 without a
 * body while the data it read has not changed. Private (per token) and revalidated each time.
 */
function cacheable(c: Context, request: OperationRequest, body: string | Buffer<ArrayBuffer>, media: string): Response {
  const tag = `"${createHash('sha256')
    .update(
      JSON.stringify([
        request.auth.role,
        request.documentId ?? request.extensions?.persistedQuery,
        request.operationName ?? null,
        request.variables ?? null,
      ]),
    )
    .update(body)
    .digest('base64url')
    .slice(0, 32)}"`;
  const headers = { etag: tag, 'cache-control': 'private, no-cache', vary: 'Authorization' };
  const asked = c.req.header('if-none-match');
  if (asked?.split(',').some((t) => t.trim().replace(/^W\//, '') === tag)) return c.body(null, 304, headers);
  return c.body(body, 200, { ...headers, 'content-type': media });
}

/** The code and words of a refusal by status alone: what is not a GraphQL request this endpoint takes. */
function transportProblem(status: number, method: string): [code: string, message: string] {
  switch (status) {
    case 405:
      return ['METHOD_NOT_ALLOWED', `${method} is not allowed on /graphql: use GET or POST`];
    case 406:
      return [
        'NOT_ACCEPTABLE',
        'none of the media types the Accept header names can be answered: accept application/graphql-response+json or application/json',
      ];
    case 415:
      return [
        'UNSUPPORTED_MEDIA_TYPE',
        'the body must be a JSON object: send it with Content-Type: application/json (UTF-8)',
      ];
    default:
      return ['BAD_REQUEST', 'the request is not a GraphQL request'];
  }
}

/** The GraphQL codes of the HTTP layer's refusals (the others are their REST codes in capitals). */
const HTTP_ERROR_CODES: Partial<Record<string, string>> = {
  invalid_json: 'BAD_REQUEST',
  invalid_parameter: 'BAD_REQUEST',
  internal_error: 'INTERNAL_SERVER_ERROR',
};

/**
 * The GraphQL codes of bearer refusals: no usable token (401: get one, or refresh it), a token
 * without the scope (403), `Authorization: Bearer` without a token (400).
 */
const BEARER_CODES = { 400: 'BAD_REQUEST', 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN' } as const;

/** The media type of an error answer: the one the Accept header negotiates, JSON for a 406 (nothing else would do). */
function errorMediaType(c: Context, status: number): string {
  return status === 406 ? JSON_CONTENT_TYPE : successMediaType(c.req.header('accept') ?? null);
}

/** An Accept header that names a JSON media type (or any). */
const TAKES_JSON = /application\/(json|graphql-response\+json|\*)|\*\/\*/;

/** Whether the client takes an event stream and no JSON (a GraphQL over SSE client). */
function streamOnly(accept: string | undefined): boolean {
  return accept?.includes('text/event-stream') === true && !TAKES_JSON.test(accept);
}

/**
 * A refusal before any operation runs: GraphQL errors with a code, in the media type the Accept
 * header negotiates (for a client that takes only an event stream, the errors as the stream's one
 * result: a `next` event, then `complete`, as Yoga answers errors over SSE), with the headers its
 * status needs (Allow, Connection, Retry-After, WWW-Authenticate). Error answers may quote the
 * request: nosniff, as REST's.
 */
function refuse(c: Context, status: number, code: string, message: string, headers: Record<string, string> = {}) {
  const common = { ...headers, 'x-content-type-options': 'nosniff' };
  if (status !== 406 && streamOnly(c.req.header('accept')))
    return c.body(`event: next\ndata: ${errorBody(code, message)}\n\nevent: complete\ndata:\n\n`, status as 400, {
      ...common,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
    });
  return c.body(errorBody(code, message), status as 400, { ...common, 'content-type': errorMediaType(c, status) });
}

/** The body as strict UTF-8 text; undefined when it is not UTF-8. */
async function readText(c: Context, limit: number): Promise<string | undefined> {
  return decodeUtf8(await readBody(c, limit));
}

/** What is wrong with a request that is not a GraphQL request, said so that a client knows what to fix. */
const REQUEST_ERRORS = {
  body: 'the request has no body: send {"query": "...", "variables": {...}}',
  json: 'the body is not valid JSON',
  object: 'the body must be a JSON object: {"query": "...", "variables": {...}}',
  query: 'the request has no "query": the GraphQL document, as a string',
  queryType: '"query" must be a string: the GraphQL document',
  documentIdType: '"documentId" must be a string: the id of a registered document',
  variables: '"variables" must be a JSON object of variable names and values',
  operationName: '"operationName" must be a string: the name of an operation in the document',
  extensions: '"extensions" must be a JSON object',
  persistedQuery:
    '"extensions.persistedQuery.sha256Hash" must be a string: the SHA-256 of a registered document, in hex',
  url: 'the query string is malformed: "variables" and "extensions" must be JSON objects',
};
