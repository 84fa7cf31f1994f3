/**
 * The one GraphQL request pipeline, for every transport (GET, POST, Server-Sent Events,
 * WebSocket): one place that, in order, finds the document's text (its plugins: trusted
 * documents), parses it (the token limit), checks its literals, chooses the role's schema, looks
 * up the prepared operation (./prepared.ts: parsing and validation are done once per text and
 * role), validates it (./validation.ts: graphql-js's rules and the project's limits as rules),
 * checks the variables (their types, text the database cannot store, their sizes, the cost
 * estimate) and the write scope, checks what the transport carries, makes the request's context,
 * and runs it: compiled by graphql-jit where that serves, by graphql-js otherwise, its errors
 * masked (./errors.ts). The transports (./http.ts, ./sse.ts, ./websocket.ts) turn requests into
 * OperationRequests and answers out of what this hands back; each refusal is a Refusal, GraphQL
 * errors with codes, and the HTTP status and headers it has over HTTP.
 */
import { contextCacheSymbol } from '@pothos/core';
import {
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLError,
  getOperationAST,
  type GraphQLSchema,
  Kind,
  type DocumentNode,
  type OperationDefinitionNode,
  subscribe,
  type ValidationRule,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';
import { BearerRefusal } from '../auth/bearer.ts';
import type { BearerAuth } from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import { readingAs } from '../data/visible.ts';
import type { WriteCaller } from '../data/write-caller.ts';
import type { Database } from '../db/client.ts';
import { unstorableText } from '../db/text.ts';
import type { Logger } from '../observability/logger.ts';
import type { Access } from '../permissions/access.ts';
import { traced, tracedSync } from '../observability/tracing.ts';
import type { Locale } from '../resources/types.ts';
import type { GraphQLContext } from './context.ts';
import { badInput, listed, maskError } from './errors.ts';
import { variableProblems } from './input-problems.ts';
import { PastReadsOfOperation } from './past.ts';
import { knownDocument, type KnownDocument, type PreparedOperation, PreparedOperations } from './prepared.ts';
import { oversizedRecursiveVariable } from './recursive-inputs.ts';
import { schemaFor } from './role-schema.ts';
import { schema as fullSchema } from './schema.ts';
import { parseDocument, validateDocument, validationRules } from './validation.ts';

/** How a request came: the transport decides what it carries (no mutations over GET or streams, subscriptions only over streams). */
export type Transport = 'get' | 'post' | 'sse' | 'websocket';

/** The code of an operation a transport does not carry (a mutation over a stream or GET, a subscription over plain HTTP). */
export const NOT_BY_TRANSPORT = 'OPERATION_NOT_SUPPORTED_BY_TRANSPORT';

/** One GraphQL request as a transport hands it over. */
export interface OperationRequest {
  auth: BearerAuth;
  transport: Transport;
  /** The document's text; a plugin may find it from `documentId` instead (trusted documents). */
  query?: string;
  documentId?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  /** What the idempotency layer runs in each write's transaction (src/http/idempotency.ts): plain POST only. */
  beforeCommit?: WriteCaller['beforeCommit'];
  /** performance.now() when the request came (the duration metric). */
  startedAt?: number;
  /** Over SSE: a mutation is not refused, for it goes over plain HTTP (a POST by a client that takes JSON too). */
  orPost?: boolean;
}

/** What refuses a request before it runs: GraphQL errors with codes, and over HTTP its status and headers (else the media type's). */
export class Refusal {
  constructor(
    readonly errors: readonly GraphQLError[],
    readonly status?: number,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A request that passed every check: what runs it. */
export interface ReadyOperation {
  prepared: PreparedOperation;
  operation: OperationDefinitionNode;
  args: ExecutionArgs;
}

/** What a plugin may add to the pipeline (trusted documents, metrics). */
export interface PipelinePlugin {
  /** The text of the request's document, when the plugin finds it (by `documentId`), or a refusal; undefined: `query` as sent. */
  document?(request: OperationRequest): string | Refusal | undefined | Promise<string | Refusal | undefined>;
  /** After a request was refused, or ran (its result, or the start of its stream). */
  done?(request: OperationRequest, done: Done): void;
}

/** How a request ended, as plugins see it. */
export interface Done {
  /** The operation's name, as named or as the document names it. */
  name: string | undefined;
  /** Its type; undefined when it was refused before it was known. */
  type: OperationDefinitionNode['operation'] | undefined;
  outcome: 'ok' | 'error' | 'rejected';
}

export interface PipelineOptions {
  db: Database;
  logger: Logger;
  clock: Clock;
  localeChain: readonly Locale[];
  introspection: boolean;
  /** What subscriptions, webhooks and change requests need: those of GraphQLContext. */
  live: Pick<GraphQLContext, 'changeFeed' | 'subscriptions' | 'watchToken' | 'webhooks' | 'changeRequests'>;
  plugins?: readonly PipelinePlugin[];
}

/** Deeper than any input type of the schema goes: a client that sends more sends nonsense. */
const MAX_VARIABLE_DEPTH = 32;

export class GraphQLPipeline {
  readonly operations = new PreparedOperations();
  private readonly rules: readonly ValidationRule[];
  private readonly mask: (error: unknown) => Error;
  private readonly plugins: readonly PipelinePlugin[];
  /** The plugins that may find a document's text. */
  private readonly documentPlugins: readonly PipelinePlugin[];

  constructor(private readonly options: PipelineOptions) {
    this.rules = validationRules(options.introspection);
    this.mask = maskError(options.logger);
    this.plugins = options.plugins ?? [];
    this.documentPlugins = this.plugins.filter((plugin) => plugin.document);
  }

  /** The schema a client's role sees: admin's is the full one, a restricted role's is made from it (./role-schema.ts). */
  schemaOf(auth: BearerAuth): GraphQLSchema {
    return auth.access ? schemaFor(auth.access) : fullSchema;
  }

  /** Checks a request: what runs it, or why it is refused. */
  async prepare(request: OperationRequest): Promise<ReadyOperation | Refusal> {
    let text: string | Refusal | undefined = request.query;
    for (const plugin of this.documentPlugins) {
      let found = plugin.document!(request);
      // Awaited only when it is a promise: a plugin with nothing to find costs no turn of the loop.
      if (found instanceof Promise) found = await found;
      if (found !== undefined) text = found;
      if (found instanceof Refusal) break;
    }
    const ready = text instanceof Refusal ? text : this.check(request, text);
    if (ready instanceof Refusal) this.done(request, undefined, 'rejected');
    return ready;
  }

  /** The checks after the document's text is known (synchronous: no await on the way of a request). */
  private check(request: OperationRequest, text: string | undefined): ReadyOperation | Refusal {
    if (typeof text !== 'string')
      return refusal('BAD_REQUEST', 'the request has no "query": the GraphQL document, as a string');
    const { auth } = request;
    const schema = this.schemaOf(auth);
    const prepared = this.validOperation(text, schema, auth.access);
    if (prepared instanceof Refusal) return prepared;
    const { document } = prepared;
    const unstorable = unstorableVariable(request.variables);
    if (unstorable) return new Refusal([unstorable]);
    const operation = getOperationAST(document, request.operationName);
    if (!operation) return new Refusal([operationNameError(document, request.operationName)]);
    const oversized = oversizedRecursiveVariable(prepared.recursiveVariables(operation), request.variables);
    if (oversized) return new Refusal([badInput(oversized)]);
    const refused = this.checkedVariables(prepared, operation, request.variables);
    if (refused) return new Refusal(refused);
    if (operation.operation === 'mutation' && !auth.scopes.includes('write')) return insufficientScope();
    const carried =
      request.orPost && operation.operation === 'mutation'
        ? undefined
        : transportRefusal(request.transport, operation.operation);
    if (carried) return carried;
    const args: ExecutionArgs = {
      schema,
      document,
      operationName: request.operationName,
      variableValues: request.variables,
      contextValue: this.context(auth, prepared, operation, request.beforeCommit),
    };
    return { prepared, operation, args };
  }

  /** The text's document prepared against the schema and valid; or why it is refused. */
  private validOperation(text: string, schema: GraphQLSchema, access: Access | undefined): PreparedOperation | Refusal {
    const known = this.operations.known(text);
    const parsed = known ?? this.parsed(text);
    if (parsed instanceof Refusal) return parsed;
    const prepared = this.operations.of(schema, parsed.document, access && ((type) => access.rowFilter(type)));
    prepared.errors ??= tracedSync('graphql.validate', {}, () =>
      validateDocument(schema, prepared.document, this.rules, this.options.introspection),
    );
    if (prepared.errors.length > 0) return new Refusal(prepared.errors);
    if (!known) this.operations.know(text, parsed);
    return prepared;
  }

  /** A text parsed, its literals checked; or why it is refused before validation. */
  private parsed(text: string): KnownDocument | Refusal {
    const document = tracedSync('graphql.parse', {}, () => parseDocument(text));
    if (document instanceof GraphQLError) return new Refusal([document]);
    const known = knownDocument(document);
    // Text the database cannot store is named before validation, as for a document never seen.
    return known.literalProblem ? new Refusal([badInput(known.literalProblem)]) : known;
  }

  /**
   * What refuses an operation by its variables, or undefined: values that do not fit their types
   * (a request error, 400, like a bad literal: the executor would answer them with a 200 and no
   * data), then sized arguments, list lengths and the estimated cost, which may depend on the
   * variables (page sizes) and are checked once those are known to fit their types.
   */
  private checkedVariables(
    prepared: PreparedOperation,
    operation: OperationDefinitionNode,
    given: Record<string, unknown> | undefined,
  ): GraphQLError[] | undefined {
    const { schema, document } = prepared;
    let variables: Record<string, unknown> = {};
    if (operation.variableDefinitions?.length) {
      const coerced = getVariableValues(schema, operation.variableDefinitions, given ?? {});
      if (coerced.errors) {
        const described = variableProblems(schema, document, operation, given ?? {}, !this.options.introspection);
        return described.length > 0 ? described : coerced.errors.map((e) => badInput(e.message, undefined, e.nodes));
      }
      variables = coerced.coerced;
    }
    const refused = prepared.limitsError(operation, variables);
    return refused && [refused];
  }

  /** A request's context. A literal of one shape (no spreads): made for every request. */
  private context(
    auth: BearerAuth,
    prepared: PreparedOperation,
    operation: OperationDefinitionNode,
    beforeCommit: WriteCaller['beforeCommit'],
  ): GraphQLContext {
    const { db, live } = this.options;
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
      localeChain: this.options.localeChain,
      clock: this.options.clock,
      changeFeed: live.changeFeed,
      subscriptions: live.subscriptions,
      watchToken: live.watchToken,
      webhooks: live.webhooks,
      changeRequests: live.changeRequests,
    };
  }

  /**
   * Runs a query or mutation that passed: graphql-jit's compiled query called directly, or
   * graphql-js where graphql-jit cannot serve it; its errors masked.
   */
  async execute(request: OperationRequest, ready: ReadyOperation): Promise<ExecutionResult> {
    const { args, prepared } = ready;
    const result = await traced('graphql.execute', { 'graphql.operation.name': args.operationName ?? '' }, async () => {
      const compiled = prepared.compiled(args.operationName);
      try {
        return this.masked(
          await (compiled ? compiled.query(undefined, args.contextValue, args.variableValues) : execute(args)),
        );
      } finally {
        await (args.contextValue as GraphQLContext).pastReads.close();
      }
    });
    this.done(request, ready.operation, result.errors?.length ? 'error' : 'ok');
    return result;
  }

  /** Starts a subscription that passed: its stream of results (masked), or the result that refuses it. */
  async subscribe(
    request: OperationRequest,
    ready: ReadyOperation,
  ): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
    const started = await subscribe(ready.args);
    const stream = Symbol.asyncIterator in started ? started : undefined;
    this.done(request, ready.operation, stream ? 'ok' : 'error');
    return stream ? maskedStream(stream, (r) => this.masked(r)) : this.masked(started as ExecutionResult);
  }

  /** Runs a query (execute) or a subscription (subscribe), as a stream carries either. */
  run(request: OperationRequest, ready: ReadyOperation) {
    return ready.operation.operation === 'subscription' ? this.subscribe(request, ready) : this.execute(request, ready);
  }

  /**
   * Runs a subscription that passed for one of its events (`rootValue`), with a context of its
   * own (a fresh per-request cache): one result that many subscribers can share (./change-events.ts).
   */
  async runEvent(args: ExecutionArgs, rootValue: unknown): Promise<ExecutionResult> {
    return this.masked(
      await execute({
        ...args,
        rootValue,
        contextValue: { ...(args.contextValue as object), [contextCacheSymbol]: {} },
      }),
    );
  }

  /** A result whose errors are masked (./errors.ts); one that stands for several, listed. */
  private masked(result: ExecutionResult): ExecutionResult {
    return result.errors ? { ...result, errors: result.errors.flatMap((error) => listed(this.mask(error))) } : result;
  }

  private done(
    request: OperationRequest,
    operation: OperationDefinitionNode | undefined,
    outcome: Done['outcome'],
  ): void {
    if (this.plugins.length === 0) return;
    const done: Done = {
      // A document refused before its operation was found may not parse: the name as its text starts.
      name: request.operationName ?? (operation ? operation.name?.value : nameInText(request.query)),
      type: operation?.operation,
      outcome,
    };
    for (const plugin of this.plugins) plugin.done?.(request, done);
  }
}

/** The name of a document's first operation, read from its text (a document that may not parse). */
function nameInText(query: string | undefined): string | undefined {
  return query === undefined ? undefined : /^\s*(?:query|mutation|subscription)\s+([_A-Za-z]\w*)/.exec(query)?.[1];
}

/** A stream of results with each result passed through `map`; ended (return) when its reader ends it. */
function maskedStream(
  stream: AsyncGenerator<ExecutionResult>,
  map: (result: ExecutionResult) => ExecutionResult,
): AsyncGenerator<ExecutionResult> {
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      const next = await stream.next();
      return next.done ? next : { done: false, value: map(next.value) };
    },
    return: (value) => stream.return(value),
    throw: (error) => stream.throw(error),
    [Symbol.asyncDispose]: async () => {
      await stream.return(undefined);
    },
  } as AsyncGenerator<ExecutionResult>;
}

/** A refusal of one error with a code. */
export function refusal(code: string, message: string, status?: number, headers?: Record<string, string>): Refusal {
  return new Refusal([new GraphQLError(message, { extensions: { code } })], status, headers);
}

/** The refusal of a mutation whose token lacks the write scope: 403 over HTTP, with the bearer challenge, as on every route. */
function insufficientScope(): Refusal {
  const bearer = new BearerRefusal(403, 'insufficient_scope', 'mutations need the write scope', 'write');
  return refusal('FORBIDDEN', bearer.description, 403, { 'www-authenticate': bearer.challenge });
}

/** What a transport does not carry: a subscription over plain HTTP; a mutation over GET (405) or a stream. */
function transportRefusal(transport: Transport, type: OperationDefinitionNode['operation']): Refusal | undefined {
  if (type === 'subscription' && (transport === 'get' || transport === 'post'))
    return refusal(
      NOT_BY_TRANSPORT,
      'subscriptions are not taken over plain HTTP: send them with Accept: text/event-stream (Server-Sent Events) or over WebSocket (graphql-transport-ws)',
    );
  if (type !== 'mutation') return undefined;
  if (transport === 'get')
    return refusal(NOT_BY_TRANSPORT, 'mutations are not taken over GET: send them with POST', 405, { allow: 'POST' });
  if (transport === 'sse' || transport === 'websocket')
    return refusal(
      NOT_BY_TRANSPORT,
      'mutations are not taken over a stream: send them as a plain POST to /graphql (Accept: application/json)',
    );
  return undefined;
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

/** Text the database cannot store (NUL, lone surrogates) in variables, as a GraphQL error. */
function unstorableVariable(variables: unknown): GraphQLError | undefined {
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
