/**
 * GraphQL over HTTP at /graphql: POST and GET (queries only), GraphiQL for browsers, the SDL at
 * /graphql/schema.graphql.
 *
 * The HTTP semantics (status codes, `application/graphql-response+json`, no mutations over GET)
 * come from graphql-http, the reference implementation of the GraphQL over HTTP spec; parsing,
 * validation and execution from Yoga's envelop (parse and validation caches, graphql-jit,
 * limits, error masking). The body is read straight from the Node request (../http/body.ts).
 */
import type { IncomingMessage } from 'node:http';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { initContextCache } from '@pothos/core';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  GraphQLError,
  getOperationAST,
  Kind,
  NoSchemaIntrospectionCustomRule,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ExecutionResult,
  type ValidationContext,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';
import { createHandler, type HandlerOptions, type Request as HandlerRequest } from 'graphql-http';
import { createYoga, type Plugin } from 'graphql-yoga';
import { Hono, type Context } from 'hono';
import { isGraphiQLPageRequest } from '../auth/bearer.ts';
import type { BearerAuth } from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import type { Locale } from '../resources/types.ts';
import type { Database } from '../db/client.ts';
import { readBody } from '../http/body.ts';
import { HttpError, JSON_CONTENT_TYPE, serviceUnavailable } from '../http/errors.ts';
import { decodeUtf8 } from '../http/input.ts';
import { unstorableText } from '../db/text.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { GraphQLContext } from './context.ts';
import { badInput, maskError, SERVICE_UNAVAILABLE } from './errors.ts';
import { GRAPHIQL_EXAMPLE } from './examples.ts';
import { GRAPHQL_LIMITS } from './limits.ts';
import { planFor } from './plan.ts';
import { printSdl, schema } from './schema.ts';

export interface GraphQLRoutesOptions {
  db: Database;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  localeChain: readonly Locale[];
  introspection: boolean;
  maxBodyBytes: number;
  /** A working access token to pre-fill GraphiQL's headers with, when there is one to give (the demo client). */
  graphiqlToken?: (c: Context) => Promise<string | undefined>;
}

/** What the handler hands from the HTTP request to the operation. */
interface RequestContext {
  auth: BearerAuth;
  startedAt: number;
  /** The Accept header, which picks the media type of the answer. */
  accept: string | null;
}

type OnSubscribe = NonNullable<HandlerOptions<IncomingMessage | undefined, RequestContext>['onSubscribe']>;

/**
 * graphql-armor's validation rules throw by default, and word their errors as syntax errors:
 * report them as the validation errors they are, with the limit in the message.
 */
const reportLimit = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { nodes: error.nodes })),
  ],
};

/**
 * Pothos's estimate of an operation's cost (fields weighted by page sizes) against the limits,
 * as a request error; undefined when within them.
 */
function costError(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): GraphQLError | undefined {
  // complexityFromQuery reads the first operation of a document: hand it the chosen one.
  const only: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [operation, ...document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)],
  };
  const { complexity, depth, breadth } = complexityFromQuery(only, { schema, variables });
  const over = [
    { name: 'complexity', actual: complexity, max: GRAPHQL_LIMITS.complexity, code: 'QUERY_COMPLEXITY' },
    { name: 'depth', actual: depth, max: GRAPHQL_LIMITS.depth, code: 'QUERY_DEPTH' },
    { name: 'breadth', actual: breadth, max: GRAPHQL_LIMITS.breadth, code: 'QUERY_BREADTH' },
  ].find((limit) => limit.actual > limit.max);
  return (
    over &&
    new GraphQLError(`Query ${over.name} of ${over.actual} exceeds max ${over.name} of ${over.max}`, {
      extensions: { code: over.code },
    })
  );
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

export function graphqlRoutes(options: GraphQLRoutesOptions): Hono {
  const { db, logger, metrics } = options;
  const source = db.reads;

  // envelop plugins are typed for the context they need; these need none of ours.
  const plugins = [
    useGraphQlJit(),
    maxTokensPlugin({ n: GRAPHQL_LIMITS.tokens }),
    maxDepthPlugin({ n: GRAPHQL_LIMITS.depth, flattenFragments: true, ...reportLimit }),
    maxAliasesPlugin({ n: GRAPHQL_LIMITS.aliases, ...reportLimit }),
    maxDirectivesPlugin({ n: GRAPHQL_LIMITS.directives, ...reportLimit }),
  ] as Plugin[];
  if (!options.introspection) {
    plugins.push(
      { onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule) },
      // Without introspection, "did you mean" hints would hand the schema out piece by piece.
      blockFieldSuggestionsPlugin(),
    );
  }
  const yoga = createYoga<GraphQLContext>({
    schema,
    graphiql: false,
    landingPage: false,
    logging: false,
    maskedErrors: { maskError: maskError(logger) },
    plugins,
  });

  const executors = new WeakMap<object, (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult>();
  const operationLabels = new Set<string>();
  const operationLabel = (name: string | undefined) => {
    if (!name) return 'anonymous';
    if (operationLabels.has(name)) return name;
    if (operationLabels.size >= MAX_OPERATION_LABELS) return 'other';
    operationLabels.add(name);
    return name;
  };

  /** Parses, validates and checks an operation: its execution arguments, or the errors (or the response) that refuse it. */
  const prepare: OnSubscribe = async (req, params) => {
    const { auth } = req.context;
    const {
      parse,
      validate,
      contextFactory,
      execute,
      schema: enveloped,
    } = yoga.getEnveloped({
      ...initContextCache(),
      db,
      source,
      auth,
      localeChain: options.localeChain,
      clock: options.clock,
    } as unknown as GraphQLContext & Record<string, unknown>);
    let document: DocumentNode;
    try {
      document = parse(params.query);
    } catch (error) {
      if (error instanceof GraphQLError) return [withCode(error, 'GRAPHQL_PARSE_FAILED')];
      throw error;
    }
    const unstorable = unstorableInput(document, params.variables);
    if (unstorable) return [unstorable];
    const errors = (() => {
      try {
        return validate(enveloped, document);
      } catch (error) {
        // A validation rule may throw its finding instead of reporting it.
        if (error instanceof GraphQLError) return [error];
        throw error;
      }
    })();
    if (errors.length > 0)
      return errors.map(
        (error: GraphQLError) => asBadInput(error, document) ?? withCode(error, 'GRAPHQL_VALIDATION_FAILED'),
      );
    const operation = getOperationAST(document, params.operationName);
    // Variables that do not fit their types are a request error (400), like a bad literal: the
    // executor would answer them with a 200 and no data.
    if (operation?.variableDefinitions?.length) {
      const coerced = getVariableValues(enveloped, operation.variableDefinitions, params.variables ?? {});
      if (coerced.errors) {
        return coerced.errors.map((e) => badInput(e.message, undefined, e.nodes));
      }
    }
    // The estimated cost depends on the variables (page sizes), so it is checked per request,
    // outside the validation cache, once they are known to fit their types.
    const tooCostly = operation && costError(enveloped, document, operation, params.variables ?? {});
    if (tooCostly) return [tooCostly];
    if (operation?.operation === 'mutation' && !auth.scopes.includes('write')) {
      return [
        JSON.stringify({ error: 'insufficient_scope', error_description: 'mutations need the write scope' }),
        {
          status: 403,
          statusText: 'Forbidden',
          headers: {
            'content-type': JSON_CONTENT_TYPE,
            'www-authenticate':
              'Bearer realm="master-data", error="insufficient_scope", error_description="mutations need the write scope", scope="write"',
          },
        },
      ];
    }
    const contextValue = (await contextFactory()) as GraphQLContext;
    contextValue.plan = planFor(enveloped, document);
    executors.set(contextValue, execute as (args: ExecutionArgs) => Promise<ExecutionResult>);
    return {
      schema: enveloped,
      document,
      operationName: params.operationName,
      variableValues: params.variables,
      contextValue,
    };
  };

  const handler = createHandler<IncomingMessage | undefined, RequestContext>({
    execute: (args) => executors.get(args.contextValue as object)!(args),
    async onSubscribe(req, params) {
      const prepared = await prepare(req, params);
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
      if (errors.length === 0) {
        return [
          JSON.stringify(result),
          { status: 200, statusText: 'OK', headers: { 'content-type': successMediaType(req.context.accept) } },
        ];
      }
      return undefined;
    },
  });

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
      context: { auth: c.get('auth'), startedAt: performance.now(), accept: c.req.header('accept') ?? null },
    };
    const [answer, init] = await handler(request);
    const body = init?.status === 400 && answer ? clarifyRequestErrors(answer) : answer;
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
  return app;
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

/** An error with a code (one it carries already is kept). */
function withCode(error: GraphQLError, code: string): GraphQLError {
  if (error.extensions?.code) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, code },
  });
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
 * A validation error about a value written in the query (a literal of the wrong type, a
 * required input field left out) as BAD_USER_INPUT naming the field, as the contract asks of
 * bad input; undefined for other validation errors.
 */
function asBadInput(error: GraphQLError, document: DocumentNode): GraphQLError | undefined {
  const missing = /^Field "[^."]+\.([^"]+)" of required type "[^"]+" was not provided\./.exec(error.message);
  const wrongValue = /^Expected value of type /.test(error.message);
  if (!missing && !wrongValue) return undefined;
  let field = missing?.[1];
  if (!field && error.nodes?.[0]) {
    const value = error.nodes[0];
    visit(document, {
      ObjectField: (node) => void (node.value === value && (field = node.name.value)),
      Argument: (node) => void (node.value === value && (field = node.name.value)),
    });
  }
  return badInput(error.message, field, error.nodes);
}

/** Deeper than any input type of the schema goes: a client that sends more sends nonsense. */
const MAX_VARIABLE_DEPTH = 32;

/** Per parsed document (the parser cache hands back the same object): what is wrong with its string literals. */
const literalProblems = new WeakMap<DocumentNode, string | null>();

function literalProblem(document: DocumentNode): string | null {
  let problem = literalProblems.get(document);
  if (problem !== undefined) return problem;
  problem = null;
  visit(document, {
    [Kind.STRING]: (node) => {
      const why = unstorableText(node.value);
      if (why && problem === null) problem = `a string in the query ${why}`;
    },
  });
  literalProblems.set(document, problem);
  return problem;
}

/** Text the database cannot store (NUL, lone surrogates) in string literals or variables, as a GraphQL error. */
function unstorableInput(document: DocumentNode, variables: unknown): GraphQLError | undefined {
  const literal = literalProblem(document);
  if (literal) return badInput(literal);
  // Walked with a stack of its own: variables nested thousands deep (JSON.parse takes them)
  // would overflow the call stack of a recursive walk (the GraphQL fuzzer's first finding, a 500).
  const pending: [value: unknown, path: string, depth: number][] = Object.entries(variables ?? {}).map(([k, v]) => [
    v,
    `$${k}`,
    1,
  ]);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path, depth] = next;
    if (depth > MAX_VARIABLE_DEPTH)
      return badInput(`variable ${path.replace(/[.[].*/, '')} is nested deeper than ${MAX_VARIABLE_DEPTH} levels`);
    if (typeof value === 'string') {
      const why = unstorableText(value);
      if (why) return badInput(`variable ${path} ${why}`);
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) pending.push([v, `${path}[${i}]`, depth + 1]);
    } else if (value && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) pending.push([v, `${path}.${k}`, depth + 1]);
  }
  return undefined;
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
