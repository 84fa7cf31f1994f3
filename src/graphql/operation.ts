/**
 * What happens to a GraphQL operation before it runs, in order: parse, text the database cannot
 * store, validation against the schema of the client's role (./role-schema.ts; with the limits of
 * ./limits.ts and, when introspection is off, no introspection and no field suggestions),
 * variables against their types, the cost estimate, and the write scope for mutations. What does
 * not depend on the variables is worked out once per role's schema and document (./prepared.ts):
 * a query text sent again under the same role skips parsing and validation. Each refusal is a
 * request error with a code; what passes gets its context and its read plan (./plan.ts), and runs
 * compiled by graphql-jit (or by graphql-js where graphql-jit cannot serve it), its errors masked
 * (./errors.ts).
 */
import type { Access } from '../permissions/access.ts';
import { readingAs } from '../data/visible.ts';
import { PastReadsOfOperation } from './past.ts';
import type { IncomingMessage } from 'node:http';
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { contextCacheSymbol } from '@pothos/core';
import {
  execute,
  GraphQLError,
  getOperationAST,
  Kind,
  NoSchemaIntrospectionCustomRule,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ASTVisitor,
  type ValidationContext,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';
import type { HandlerOptions, OperationArgs } from 'graphql-http';
import { createYoga, type Plugin } from 'graphql-yoga';
import { BearerRefusal } from '../auth/bearer.ts';
import type { BearerAuth } from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import type { WriteCaller } from '../data/write-caller.ts';
import type { Database } from '../db/client.ts';
import { unstorableText } from '../db/text.ts';
import type { Logger } from '../observability/logger.ts';
import { traced, tracedSync } from '../observability/tracing.ts';
import type { Locale } from '../resources/types.ts';
import { errorBody, successMediaType } from './answers.ts';
import type { GraphQLContext } from './context.ts';
import { badInput, listed, maskError } from './errors.ts';
import { variableProblems, withInputProblems } from './input-problems.ts';
import { oversizedRecursiveVariable } from './recursive-inputs.ts';
import { depthRule, directivesRule, GRAPHQL_LIMITS } from './limits.ts';
import { literalProblem, PreparedOperation, PreparedOperations } from './prepared.ts';
import { schemaFor } from './role-schema.ts';
import { schema } from './schema.ts';

/** What the handler hands from the HTTP request to the operation. */
export interface RequestContext {
  auth: BearerAuth;
  startedAt: number;
  /** The Accept header, which picks the media type of the answer. */
  accept: string | null;
  /**
   * What the idempotency layer runs in each write's transaction (src/http/idempotency.ts): plain
   * HTTP only, where mutations are taken (streams refuse them, ./streaming.ts).
   */
  beforeCommit?: WriteCaller['beforeCommit'];
  /** A large answer's JSON as bytes, set when it is serialized (graphql-http passes on string bodies only). */
  answerBytes?: Buffer<ArrayBuffer>;
}

type OnSubscribe = NonNullable<HandlerOptions<IncomingMessage | undefined, RequestContext>['onSubscribe']>;

export interface OperationOptions {
  db: Database;
  logger: Logger;
  clock: Clock;
  localeChain: readonly Locale[];
  introspection: boolean;
  /** What subscriptions, webhooks and change requests need: those of GraphQLContext. */
  live: Pick<GraphQLContext, 'changeFeed' | 'subscriptions' | 'watchToken' | 'webhooks' | 'changeRequests'>;
}

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

type Run = (args: ExecutionArgs) => Promise<ExecutionResult | AsyncIterable<ExecutionResult>> | ExecutionResult;

export interface OperationPipeline {
  /** Checks an operation: its execution arguments, or the errors (or the response) that refuse it. */
  prepare: OnSubscribe;
  /** Runs a query or mutation that passed. */
  execute: (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;
  /** Starts a subscription that passed: its stream of results, or the errors that refuse it. */
  subscribe: Run;
  /**
   * Runs a subscription that passed for one of its events (`rootValue`), with a context of its
   * own (a fresh per-request cache): one result that many subscribers can share (./sse.ts).
   */
  runEvent: (args: ExecutionArgs, rootValue: unknown) => Promise<ExecutionResult> | ExecutionResult;
}

/**
 * An operation whose type the schema has no root for (mutations, for a role that may not write)
 * is a validation error, as graphql-js 17 makes it; graphql-js 16 lets it through to execution.
 */
function knownOperationTypesRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (!context.getSchema().getRootType(node.operation))
        context.reportError(
          new GraphQLError(`The ${node.operation} operation is not supported by the schema.`, { nodes: node }),
        );
    },
  };
}

/** Yoga's envelop (parse and validation caches, limits), for the pipeline. */
function envelopOf(options: OperationOptions) {
  // envelop plugins are typed for the context they need; these need none of ours.
  const plugins = [
    maxTokensPlugin({ n: GRAPHQL_LIMITS.tokens }),
    // Ours, not graphql-armor's: that one leaves introspection (`__schema`) out of the depth, and
    // counts a fragment spread's directives only the first time the fragment is spread.
    {
      onValidate: ({ addValidationRule }) => {
        addValidationRule(depthRule);
        addValidationRule(directivesRule);
        addValidationRule(knownOperationTypesRule);
      },
    },
    // Every aliased field counts, `__typename` too (graphql-armor leaves it out by default).
    maxAliasesPlugin({ n: GRAPHQL_LIMITS.aliases, allowList: [], ...reportLimit }),
  ] as Plugin[];
  if (!options.introspection) {
    plugins.push(
      { onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule) },
      // Without introspection, "did you mean" hints would hand the schema out piece by piece.
      blockFieldSuggestionsPlugin(),
    );
  }
  return createYoga<GraphQLContext>({
    schema,
    graphiql: false,
    landingPage: false,
    logging: false,
    maskedErrors: { maskError: maskError(options.logger) },
    plugins,
  });
}

/**
 * Runs a query or mutation that passed: graphql-jit's compiled query called directly (through the
 * envelop's execute, a lookup by id spent a tenth of its GraphQL work in the envelop's hooks and
 * promise helpers), or graphql-js where graphql-jit cannot serve it; its errors masked.
 */
function runOperation(
  args: ExecutionArgs,
  prepared: PreparedOperations,
  mask: (error: unknown) => Error,
): Promise<ExecutionResult> {
  return traced('graphql.execute', { 'graphql.operation.name': args.operationName ?? '' }, async () => {
    const compiled = prepared.of(args.schema, args.document).compiled(args.operationName);
    try {
      return masked(
        await (compiled ? compiled.query(undefined, args.contextValue, args.variableValues) : execute(args)),
        mask,
      );
    } finally {
      await (args.contextValue as GraphQLContext).pastReads.close();
    }
  });
}

/** A result whose errors are masked (./errors.ts), as Yoga masks those of its own results; one that stands for several, listed. */
function masked(result: ExecutionResult, mask: (error: unknown) => Error): ExecutionResult {
  return result.errors ? { ...result, errors: result.errors.flatMap((error) => listed(mask(error))) } : result;
}

/** A request's context. A literal of one shape (no spreads): made for every request. */
function requestContext(
  options: OperationOptions,
  auth: BearerAuth,
  prepared: PreparedOperation,
  operation: OperationDefinitionNode,
  beforeCommit: WriteCaller['beforeCommit'],
): GraphQLContext {
  const { db, live } = options;
  return {
    [contextCacheSymbol]: {},
    db,
    // A subscription's events follow writes as they commit: they read where those are (the
    // primary), not from a read replica that may not have replayed them yet.
    source: readingAs(operation.operation === 'subscription' ? db.primary : db.readsFor(auth.clientId), auth.access),
    asOf: undefined,
    pastReads: new PastReadsOfOperation(),
    plan: prepared.plan,
    auth,
    writeCaller: { apiClientId: auth.clientId, access: auth.access, beforeCommit },
    localeChain: options.localeChain,
    clock: options.clock,
    changeFeed: live.changeFeed,
    subscriptions: live.subscriptions,
    watchToken: live.watchToken,
    webhooks: live.webhooks,
    changeRequests: live.changeRequests,
  };
}

/** Yoga's envelop with our plugins; `prepare` checks an operation, `execute` and `subscribe` run one that passed. */
export function operationPipeline(options: OperationOptions): OperationPipeline {
  const mask = maskError(options.logger);
  // Taken once, not per request: none of these depends on the request (a request's context is
  // made in `prepare` as the envelop's contextFactory would make it: our plugins add nothing).
  // Taken per request, they and the parse and validation caches' lookups were most of the 11.5%
  // of the server's CPU profile that preparing a lookup by id took (3.6% now).
  const enveloped = envelopOf(options).getEnveloped({});
  const { schema: envelopedSchema } = enveloped;

  const operations = new PreparedOperations();
  // Admin's is the envelop's own schema; a restricted role's is made from it (./role-schema.ts).
  const schemaOf = (auth: BearerAuth) => (auth.access ? schemaFor(auth.access) : envelopedSchema);

  /** The document of a query text, parsed, and prepared against `schema` once valid; or the errors that refuse it. */
  const validOperation = (
    query: string,
    schema: GraphQLSchema,
    access: Access | undefined,
  ): PreparedOperation | readonly GraphQLError[] => {
    const known = operations.documentOf(query);
    const document = known ?? parsed(query);
    if (Array.isArray(document)) return document;
    const prepared = operations.of(schema, document as DocumentNode, access && ((type) => access.rowFilter(type)));
    prepared.errors ??= validated(schema, prepared.document);
    if (prepared.errors.length > 0) return prepared.errors;
    if (!known) operations.know(query, prepared.document);
    return prepared;
  };

  /** A query text's document; or why it is refused before validation (it does not parse, or holds text the database cannot store). */
  const parsed = (query: string): DocumentNode | GraphQLError[] => {
    let document: DocumentNode;
    try {
      document = tracedSync('graphql.parse', {}, () => enveloped.parse(query));
    } catch (error) {
      if (error instanceof GraphQLError) return [parseError(error)];
      throw error;
    }
    // Text the database cannot store is named before validation, as for a document never seen.
    const literal = literalProblem(document);
    return literal ? [badInput(literal)] : document;
  };

  /** Validation's errors (with codes): none when the document is valid against the schema. */
  const validated = (schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] => {
    const errors = (() => {
      try {
        return tracedSync('graphql.validate', {}, () => enveloped.validate(schema, document));
      } catch (error) {
        // A validation rule may throw its finding instead of reporting it.
        if (error instanceof GraphQLError) return [error];
        throw error;
      }
    })();
    return errors.length > 0 ? validationErrors(schema, document, errors, options.introspection) : [];
  };

  /** Parses, validates and checks an operation: its execution arguments, or the errors (or the response) that refuse it. */
  const prepare: OnSubscribe = async (req, params) => {
    const { auth } = req.context;
    const schema = schemaOf(auth);
    const prepared = validOperation(params.query, schema, auth.access);
    if (!(prepared instanceof PreparedOperation)) return [...prepared];
    const { document } = prepared;
    const unstorable = unstorableInput(document, params.variables);
    if (unstorable) return [unstorable];
    const operation = getOperationAST(document, params.operationName);
    if (!operation) return [operationNameError(document, params.operationName ?? undefined)];
    const oversized = oversizedRecursiveVariable(schema, operation, params.variables);
    if (oversized) return [badInput(oversized)];
    const refused = checkedVariables(prepared, operation, params.variables ?? undefined, options.introspection);
    if (refused) return refused;
    if (operation.operation === 'mutation' && !auth.scopes.includes('write'))
      return insufficientScope(req.context.accept);
    const contextValue = requestContext(options, auth, prepared, operation, req.context.beforeCommit);
    const args: ExecutionArgs = {
      schema,
      document,
      operationName: params.operationName,
      variableValues: params.variables,
      contextValue,
    };
    // graphql-http types the context by a parameter of its own (undefined here): ours is GraphQLContext.
    return args as OperationArgs<undefined>;
  };

  return {
    prepare,
    execute: (args) => runOperation(args, operations, mask),
    subscribe: (args) => enveloped.subscribe(args) as ReturnType<Run>,
    // graphql-js's own execute: the envelop's would start the subscription again (it subscribes
    // when the operation is one). Each event gets a fresh per-request cache.
    runEvent: async (args, rootValue) =>
      masked(
        await execute({
          ...args,
          rootValue,
          contextValue: { ...(args.contextValue as object), [contextCacheSymbol]: {} },
        }),
        mask,
      ),
  };
}

/**
 * What refuses an operation by its variables, or undefined: values that do not fit their types
 * (a request error, 400, like a bad literal: the executor would answer them with a 200 and no
 * data), then sized arguments, list lengths and the estimated cost, which may depend on the
 * variables (page sizes) and are checked once those are known to fit their types.
 */
function checkedVariables(
  prepared: PreparedOperation,
  operation: OperationDefinitionNode,
  given: Record<string, unknown> | undefined,
  introspection: boolean,
): GraphQLError[] | undefined {
  const { schema, document } = prepared;
  let variables: Record<string, unknown> = {};
  if (operation.variableDefinitions?.length) {
    const coerced = getVariableValues(schema, operation.variableDefinitions, given ?? {});
    if (coerced.errors) {
      const described = variableProblems(schema, document, operation, given ?? {}, !introspection);
      return described.length > 0 ? described : coerced.errors.map((e) => badInput(e.message, undefined, e.nodes));
    }
    variables = coerced.coerced;
  }
  const refused = prepared.limitsError(operation, variables);
  return refused && [refused];
}

/** graphql-js gives up comparing fields of one name past a budget, and says only "Validation aborted.". */
const VALIDATION_ABORTED = new GraphQLError(
  'the document repeats fields of the same name more often than validation compares (some hundreds in one selection): select each field once',
);

/** Validation errors with codes: values written in the query as BAD_USER_INPUT naming the field, the rest as they are. */
function validationErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  errors: readonly GraphQLError[],
  introspection: boolean,
): GraphQLError[] {
  const inputs = withInputProblems(schema, document, errors, !introspection);
  return errors.map(
    (error, i) =>
      inputs[i] ??
      asBadInput(error, document) ??
      withCode(error.message === 'Validation aborted.' ? VALIDATION_ABORTED : error, 'GRAPHQL_VALIDATION_FAILED'),
  );
}

/**
 * The refusal of a mutation whose token lacks the write scope: an HTTP answer of its own (403,
 * with the bearer challenge, as on every route), GraphQL errors in the negotiated media type.
 */
function insufficientScope(
  accept: string | null,
): [string, { status: 403; statusText: string; headers: Record<string, string> }] {
  const refusal = new BearerRefusal(403, 'insufficient_scope', 'mutations need the write scope', 'write');
  return [
    errorBody('FORBIDDEN', refusal.description),
    {
      status: 403,
      statusText: 'Forbidden',
      headers: { 'content-type': successMediaType(accept), 'www-authenticate': refusal.challenge },
    },
  ];
}

/** Why a document has no operation to run: several and none named, or the name is not one of them. */
function operationNameError(document: DocumentNode, name: string | undefined): GraphQLError {
  const names = document.definitions.flatMap((d) =>
    d.kind === Kind.OPERATION_DEFINITION ? [d.name?.value ?? '(anonymous)'] : [],
  );
  if (name === undefined)
    return new GraphQLError(
      `the document holds ${names.length} operations (${names.join(', ')}): name the one to run in "operationName"`,
      { extensions: { code: 'OPERATION_NAME_REQUIRED' } },
    );
  return new GraphQLError(
    `the document has no operation named ${JSON.stringify(name)}: its operations are ${names.join(', ')}`,
    { extensions: { code: 'UNKNOWN_OPERATION_NAME' } },
  );
}

/**
 * A document that does not parse; or one over the token limit, which graphql-armor finds while
 * parsing and words as a syntax error: a limit like the others (a validation error).
 */
function parseError(error: GraphQLError): GraphQLError {
  if (!/^Syntax Error: Token limit of \d+ exceeded/.test(error.message)) return withCode(error, 'GRAPHQL_PARSE_FAILED');
  return new GraphQLError(error.message.replace(/^Syntax Error: /, ''), {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
  });
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
      return badInput(
        `variable ${path.replace(/[.[].*/, '')} is nested deeper than ${MAX_VARIABLE_DEPTH} levels, at ${path}`,
      );
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
