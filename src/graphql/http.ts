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
import { GraphQLError, getOperationAST } from 'graphql';
import { createHandler, type Request as HandlerRequest } from 'graphql-http';
import { Hono, type Context } from 'hono';
import { isGraphiQLPageRequest } from '../auth/bearer.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { readBody } from '../http/body.ts';
import { HttpError, JSON_CONTENT_TYPE, serviceUnavailable } from '../http/errors.ts';
import { decodeUtf8 } from '../http/input.ts';
import { jsonBody } from '../http/json-body.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Locale } from '../resources/types.ts';
import { SERVICE_UNAVAILABLE } from './errors.ts';
import { GRAPHIQL_EXAMPLE } from './examples.ts';
import { type OperationOptions, type OperationPipeline, operationPipeline, type RequestContext } from './operation.ts';
import { printSdl } from './schema.ts';
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

/**
 * The GraphiQL page may carry a live token (the embedded default's demo client) and runs
 * operations at a click: no other site may frame it (clickjacking), keep it, or learn its URL.
 * Its renderer is one inline script that starts web workers from blobs: a script policy is left
 * to the default, the policy sets what does not depend on it.
 */
const GRAPHIQL_PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Operation names become metric labels: bounded, so that clients cannot grow the label set without end. */
const MAX_OPERATION_LABELS = 200;

export interface GraphQLTransports {
  /** GraphQL over HTTP, and over Server-Sent Events (`Accept: text/event-stream`). */
  routes: Hono;
  /** GraphQL over WebSocket (graphql-ws), on the same path. */
  websocket: GraphQLWebSocket;
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
      const prepared = await operations.prepare(req, params);
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

  let sdl: string | undefined;
  app.get('/graphql/schema.graphql', (c) =>
    c.body((sdl ??= printSdl()), 200, { 'Content-Type': 'text/plain; charset=utf-8' }),
  );

  app.on(['GET', 'HEAD', 'POST'], '/graphql', async (c) => {
    if (c.req.method !== 'POST' && isGraphiQLPageRequest(c)) {
      const token = await options.graphiqlToken?.(c);
      if (!graphiqlPage || graphiqlPage.token !== token) graphiqlPage = { html: await graphiqlHtml(c, token), token };
      return c.html(graphiqlPage.html, 200, GRAPHIQL_PAGE_HEADERS);
    }
    const raw = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    // Read here, not when graphql-http asks: it answers any error of reading with a 400, where
    // an oversized body is a 413 and a body that is not UTF-8 its own 400.
    const text = c.req.method === 'POST' ? await readText(c, options.maxBodyBytes) : null;
    if (c.req.header('accept')?.includes('text/event-stream')) {
      const streamed = new Request(c.req.url, { method: c.req.method, headers: c.req.raw.headers, body: text });
      return sse(streamed, c.get('auth'));
    }
    // A JSON array of operations would multiply every per-request limit by its length.
    if (text?.trimStart().startsWith('[')) {
      return c.json(
        {
          errors: [{ message: 'batched operations (a JSON array) are not supported: send one operation per request' }],
        },
        400,
      );
    }
    const request: HandlerRequest<IncomingMessage | undefined, RequestContext> = {
      method: c.req.method,
      url: c.req.url,
      headers: { get: (name) => c.req.header(name) ?? null },
      body: text,
      raw,
      context: {
        auth: c.get('auth'),
        startedAt: performance.now(),
        accept: c.req.header('accept') ?? null,
        beforeCommit: c.get('beforeCommit'),
      },
    };
    const [answer, init] = await handler(request);
    const body =
      request.context.answerBytes ?? (init?.status === 400 && answer ? clarifyRequestErrors(answer) : answer);
    // Its headers are a plain object with lower-case names (graphql-http's and ours): handed to
    // Node as they are, without a Headers object in between.
    const headers = { ...(init?.headers as Record<string, string> | undefined) };
    // graphql-http leaves the type off its 405 for a mutation over GET, whose body is JSON.
    if (body && !headers['content-type']) headers['content-type'] = JSON_CONTENT_TYPE;
    const status = (init?.status ?? 200) as 200;
    return body === null ? c.body(null, status, headers) : c.body(body, status, headers);
  });

  app.all('/graphql', (c) => {
    throw new HttpError(405, 'method_not_allowed', `${c.req.method} is not allowed on /graphql: use GET or POST`, {
      Allow: 'GET, POST',
    });
  });
  return { routes: app, websocket: graphqlWebSocket(operations, options.tokens, graphqlPath) };
}

/**
 * The media type graphql-http gives a successful answer for an Accept header it took (it refuses
 * the others with 406 before any operation runs): its rule, the first entry it can serve wins.
 */
function successMediaType(accept: string | null): string {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = entry.split(';');
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (type === 'application/graphql-response+json' && charset === 'charset=utf-8')
      return 'application/graphql-response+json; charset=utf-8';
    if (
      (type === 'application/json' || type === 'application/*' || type === '*/*') &&
      (charset === 'charset=utf-8' || charset === 'charset=utf8')
    )
      break;
  }
  return JSON_CONTENT_TYPE;
}

/** The body as strict UTF-8 text (graphql-http parses the JSON). */
async function readText(c: Context, limit: number): Promise<string> {
  const text = decodeUtf8(await readBody(c, limit));
  if (text === undefined) throw new HttpError(400, 'invalid_json', 'the request body is not valid UTF-8');
  return text;
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

/**
 * GraphiQL's page. Its renderer (a 9 MB bundle) is loaded on the first page asked for, not at
 * start: measured, importing it costs a server 80 MB of memory that one never browsed keeps for nothing.
 */
async function graphiqlHtml(c: Context, token: string | undefined): Promise<string> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const endpoint = new URL(c.req.url).pathname;
  return renderGraphiQL({
    title: 'Master data GraphQL',
    endpoint,
    defaultQuery: GRAPHIQL_EXAMPLE,
    headers: JSON.stringify(
      { Authorization: `Bearer ${token ?? '<access token from POST /oauth/token.php>'}` },
      null,
      2,
    ),
    shouldPersistHeaders: false,
  } as Parameters<typeof renderGraphiQL>[0]);
}
