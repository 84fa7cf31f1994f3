/**
 * GraphQL over HTTP at /graphql: POST and GET (queries only), GraphiQL for browsers, the SDL at
 * /graphql/schema.graphql.
 *
 * The HTTP semantics (status codes, `application/graphql-response+json`, no mutations over GET)
 * come from graphql-http, the reference implementation of the GraphQL over HTTP spec; parsing and
 * validation from Yoga's envelop (its caches and limits), our checks before an operation runs and
 * its execution by graphql-jit, errors masked (./operation.ts). The body is read straight from
 * the Node request (../http/body.ts).
 */
import type { IncomingMessage } from 'node:http';
import { type ExecutionArgs, GraphQLError, getOperationAST, parse } from 'graphql';
import {
  createHandler,
  type Request as HandlerRequest,
  parseRequestParams,
  type Response as HandlerResponse,
} from 'graphql-http';
import { Hono, type Context } from 'hono';
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
import { errorBody, successMediaType } from './answers.ts';
import { SERVICE_UNAVAILABLE } from './errors.ts';
import { GRAPHIQL_PAGE_HEADERS, graphiqlHtml } from './graphiql.ts';
import { type OperationOptions, type OperationPipeline, operationPipeline, type RequestContext } from './operation.ts';
import { NOT_BY_TRANSPORT } from './streaming.ts';
import { schemaFor, sdlOf } from './role-schema.ts';
import { sseTransport } from './sse.ts';
import { type GraphQLWebSocket, graphqlWebSocket } from './websocket.ts';

export interface GraphQLRoutesOptions {
  db: Database;
  /** What subscriptions need (./subscriptions.ts). */
  live: OperationOptions['live'];
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

/** graphql-http's handler over the pipeline, with the operations' metrics. */
function httpHandler(operations: OperationPipeline, metrics: Metrics) {
  const operationLabels = new Set<string>();
  const operationLabel = (name: string | undefined) => {
    if (!name) return 'anonymous';
    if (operationLabels.has(name)) return name;
    if (operationLabels.size >= MAX_OPERATION_LABELS) return 'other';
    operationLabels.add(name);
    return name;
  };

  return createHandler<IncomingMessage | undefined, RequestContext>({
    execute: operations.execute,
    async onSubscribe(req, params) {
      let prepared = await operations.prepare(req, params);
      if (!Array.isArray(prepared) && prepared && 'document' in prepared)
        prepared = transportRefusal(req.method, req.context.accept, prepared) ?? prepared;
      // Refused before running (syntax, validation, limits, scope): an operation all the same.
      if (Array.isArray(prepared)) {
        // The document may not parse: the name as the client gave it, or as the text starts.
        const name =
          params.operationName ?? /^\s*(?:query|mutation|subscription)\s+([_A-Za-z]\w*)/.exec(params.query)?.[1];
        const labels = { operation: operationLabel(name), type: 'unknown' };
        metrics.graphqlOperations.inc({ ...labels, outcome: 'rejected' });
        metrics.graphqlDuration.observe(labels, (performance.now() - req.context.startedAt) / 1000);
      }
      return prepared;
    },
    // Yoga marks request errors with an `http` extension for its own HTTP layer; not ours to show.
    formatError: (error) => {
      if (!(error instanceof GraphQLError) || !error.extensions?.http) return error;
      const { http: _http, ...extensions } = error.extensions;
      return new GraphQLError(error.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        originalError: error.originalError,
        extensions,
      });
    },
    onOperation(req, args, result) {
      const operation = getOperationAST(args.document, args.operationName);
      const labels = { operation: operationLabel(operation?.name?.value), type: operation?.operation ?? 'query' };
      const errors = 'errors' in result ? (result.errors ?? []) : [];
      metrics.graphqlOperations.inc({ ...labels, outcome: errors.length > 0 ? 'error' : 'ok' });
      metrics.graphqlDuration.observe(labels, (performance.now() - req.context.startedAt) / 1000);
      // A database outage is the service's state, not the query's: answer it like every other route.
      if (errors.some((e) => e.extensions?.code === SERVICE_UNAVAILABLE)) throw serviceUnavailable();
      // graphql-http serializes with a replacer function (for Errors), which takes V8's
      // JSON.stringify off its fast path: twice the time (measured: 88 -> 170 µs for 20 KB, 0.7 ->
      // 1.3 ms for 160 KB). A result without errors holds no Error: serialized here, plainly.
      // graphql-http passes on string bodies only: a large answer's bytes (src/http/json-body.ts)
      // go to the route through the context.
      if (errors.length === 0) {
        const body = jsonBody(result);
        if (typeof body !== 'string') req.context.answerBytes = body;
        return [
          typeof body === 'string' ? body : '',
          { status: 200, statusText: 'OK', headers: { 'content-type': successMediaType(req.context.accept) } },
        ];
      }
      return undefined;
    },
  });
}

export function graphqlRoutes(options: GraphQLRoutesOptions): GraphQLTransports {
  const operations = operationPipeline(options);
  const handler = httpHandler(operations, options.metrics);
  const graphqlPath = `${options.basePath}/graphql`;
  const sse = sseTransport(operations, graphqlPath);

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
    // Read here, not when graphql-http asks: it answers any error of reading with a 400, where
    // an oversized body is a 413 and a body that is not UTF-8 its own 400.
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
    if (c.req.header('accept')?.includes('text/event-stream')) {
      const streamed = await streamedRequest(c, text);
      if (streamed instanceof Response) return streamed;
      if (streamed) return sse(streamed, c.get('auth'));
    }
    return answerOverHttp(c, handler, text);
  });

  app.all('/graphql', (c) =>
    refuse(c, 405, 'METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on /graphql: use GET or POST`, {
      Allow: 'GET, POST',
    }),
  );
  return {
    routes: app,
    websocket: graphqlWebSocket(operations, options.tokens, graphqlPath, options.maxBodyBytes),
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

type Handler = ReturnType<typeof httpHandler>;

/**
 * Who asks for the SDL: the token's client, when there is one (the route is open while
 * introspection is on: the middleware has not checked a token it carries); undefined without a
 * token. A token that is not valid is refused as on every protected route (RFC 6750), not taken
 * for none: its client would read a schema that is not its own.
 */
async function sdlReader(c: Context, tokens: TokenService): Promise<BearerAuth | undefined> {
  return c.get('auth') ?? bearerAuth(tokens, c.req.header('authorization') ?? '');
}

/** A query or mutation over plain HTTP, through graphql-http; what it refuses before any operation, with a code. */
async function answerOverHttp(c: Context, handler: Handler, text: string | null): Promise<Response> {
  const request: HandlerRequest<IncomingMessage | undefined, RequestContext> = {
    method: c.req.method,
    url: c.req.url,
    headers: { get: (name) => c.req.header(name) ?? null },
    body: text,
    raw: (c.env as { incoming?: IncomingMessage } | undefined)?.incoming,
    context: {
      auth: c.get('auth'),
      startedAt: performance.now(),
      accept: c.req.header('accept') ?? null,
      beforeCommit: c.get('beforeCommit'),
    },
  };
  const [answer, init] = await handler(request);
  const status = init?.status ?? 200;
  // graphql-http answers 405, 406 and 415 without a body.
  if (answer === null && status >= 400) {
    const [code, message] = transportProblem(status, c.req.method);
    return refuse(c, status, code, message, init?.headers as Record<string, string> | undefined);
  }
  // Its headers are a plain object with lower-case names (graphql-http's and ours): handed to
  // Node as they are, without a Headers object in between.
  const headers = { ...(init?.headers as Record<string, string> | undefined) };
  let body = request.context.answerBytes ?? answer;
  if (status === 400 && typeof body === 'string') {
    const clarified = clarifyRequestErrors(body);
    if (clarified !== body) {
      body = clarified;
      headers['content-type'] = errorMediaType(c, status);
      headers['x-content-type-options'] = 'nosniff';
    }
  }
  return body === null ? c.body(null, status as 200, headers) : c.body(body, status as 200, headers);
}

/**
 * A request over Server-Sent Events checked as graphql-http checks one over plain HTTP (its body
 * or query string, its media type), so that both answer alike what is not a GraphQL request (a
 * 4xx with a code, not an event carrying an error, or a 500 for malformed `variables` in a
 * query string). A mutation whose client takes JSON too goes over plain HTTP (undefined): the
 * stream would refuse it.
 */
async function streamedRequest(c: Context, text: string | null): Promise<Request | Response | undefined> {
  const request = {
    method: c.req.method,
    url: c.req.url,
    headers: { get: (name: string) => c.req.header(name) ?? null },
    body: text,
    raw: undefined,
    context: undefined,
  };
  let params: Awaited<ReturnType<typeof parseRequestParams>>;
  try {
    params = await parseRequestParams(request);
  } catch (error) {
    const message = (error as Error).message;
    return refuse(c, 400, 'BAD_REQUEST', REQUEST_ERRORS[message] ?? message);
  }
  if (Array.isArray(params)) {
    const [code, message] = transportProblem(params[1].status, c.req.method);
    return refuse(c, params[1].status, code, message, params[1].headers as Record<string, string> | undefined);
  }
  const { query, operationName } = params as { query: string; operationName?: string };
  if (TAKES_JSON.test(c.req.header('accept') ?? '') && isMutation(query, operationName)) return undefined;
  return new Request(c.req.url, { method: c.req.method, headers: c.req.raw.headers, body: text });
}

/** Whether a document's chosen operation is a mutation (anything that does not parse is not). */
function isMutation(query: string, operationName: string | undefined): boolean {
  try {
    return getOperationAST(parse(query), operationName)?.operation === 'mutation';
  } catch {
    return false;
  }
}

/**
 * What over plain HTTP the transport does not carry: a subscription (it streams), a mutation
 * over GET (405, as graphql-http answers it, with a code).
 */
function transportRefusal(
  method: string,
  accept: string | null,
  args: ExecutionArgs,
): HandlerResponse | readonly GraphQLError[] | undefined {
  const operation = getOperationAST(args.document, args.operationName)?.operation;
  if (operation === 'subscription')
    return [
      new GraphQLError(
        'subscriptions are not taken over plain HTTP: send them with Accept: text/event-stream (Server-Sent Events) or over WebSocket (graphql-transport-ws)',
        { extensions: { code: NOT_BY_TRANSPORT } },
      ),
    ];
  if (operation === 'mutation' && method === 'GET')
    return [
      errorBody(NOT_BY_TRANSPORT, 'mutations are not taken over GET: send them with POST'),
      {
        status: 405,
        statusText: 'Method Not Allowed',
        headers: { allow: 'POST', 'content-type': successMediaType(accept), 'x-content-type-options': 'nosniff' },
      },
    ];
  return undefined;
}

/** The code and words of a refusal graphql-http (or its request parser) gives by status alone. */
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

/** The media type of an error answer: graphql-http's for the Accept header, JSON for a 406 (nothing else would do). */
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

/** The body as strict UTF-8 text (graphql-http parses the JSON); undefined when it is not UTF-8. */
async function readText(c: Context, limit: number): Promise<string | undefined> {
  return decodeUtf8(await readBody(c, limit));
}

/**
 * What graphql-http says of a request that is not a GraphQL request at all (before any operation
 * is read), said so that a client knows what to fix.
 */
const REQUEST_ERRORS: Record<string, string> = {
  'Missing body': 'the request has no body: send {"query": "...", "variables": {...}}',
  'Unparsable JSON body': 'the body is not valid JSON',
  'JSON body must be an object': 'the body must be a JSON object: {"query": "...", "variables": {...}}',
  'Missing query': 'the request has no "query": the GraphQL document, as a string',
  'Invalid query': '"query" must be a string: the GraphQL document',
  'Invalid variables': '"variables" must be a JSON object of variable names and values',
  'Invalid operationName': '"operationName" must be a string: the name of an operation in the document',
  'Invalid extensions': '"extensions" must be a JSON object',
  'Unparsable URL': 'the query string is malformed: "variables" and "extensions" must be JSON objects',
};

/** graphql-http's request errors (400, no code) in words and with the code BAD_REQUEST; other answers unchanged. */
function clarifyRequestErrors(answer: string): string {
  const parsed = JSON.parse(answer) as { errors?: { message: string; extensions?: Record<string, unknown> }[] };
  if (!parsed.errors?.some((e) => !e.extensions?.code)) return answer;
  const errors = parsed.errors.map((e) =>
    e.extensions?.code ? e : { message: REQUEST_ERRORS[e.message] ?? e.message, extensions: { code: 'BAD_REQUEST' } },
  );
  return JSON.stringify({ ...parsed, errors });
}
