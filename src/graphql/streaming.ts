/**
 * What the two streaming transports (Server-Sent Events, ./sse.ts; WebSocket, ./websocket.ts)
 * share: an operation checked as over plain HTTP (./operation.ts), then run. They carry
 * subscriptions and queries; mutations go over a plain POST, where the HTTP layer gives them what
 * the streams cannot (Idempotency-Key, status codes).
 */
import { GraphQLError, getOperationAST, type ExecutionArgs } from 'graphql';
import type { BearerAuth } from '../auth/tokens.ts';
import type { OperationPipeline } from './operation.ts';

/** The code of an operation a transport does not carry (a mutation over a stream or GET, a subscription over plain HTTP). */
export const NOT_BY_TRANSPORT = 'OPERATION_NOT_SUPPORTED_BY_TRANSPORT';

export interface StreamedParams {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  extensions?: Record<string, unknown> | null;
}

/** The operation's execution arguments, or the errors that refuse it. */
export async function prepareStreamed(
  operations: OperationPipeline,
  auth: BearerAuth,
  params: StreamedParams,
): Promise<ExecutionArgs | readonly GraphQLError[]> {
  if (typeof params.query !== 'string')
    return [
      new GraphQLError('"query" must be a string: the GraphQL document', { extensions: { code: 'BAD_REQUEST' } }),
    ];
  const prepared = await operations.prepare(
    { context: { auth, startedAt: performance.now(), accept: null } } as never,
    {
      query: params.query,
      operationName: params.operationName ?? undefined,
      variables: params.variables ?? undefined,
      extensions: params.extensions ?? undefined,
    },
  );
  if (Array.isArray(prepared)) {
    // A refusal as an HTTP answer ([body, init]: a mutation without the write scope) or as errors.
    if (typeof prepared[0] === 'string')
      return [new GraphQLError('mutations need the write scope', { extensions: { code: 'FORBIDDEN' } })];
    return prepared as readonly GraphQLError[];
  }
  const args = prepared as ExecutionArgs;
  if (getOperationAST(args.document, args.operationName)?.operation === 'mutation')
    return [
      new GraphQLError(
        'mutations are not taken over a stream: send them as a plain POST to /graphql (Accept: application/json)',
        { extensions: { code: NOT_BY_TRANSPORT } },
      ),
    ];
  return args;
}

/** Runs checked arguments: a subscription's stream, or a query's one result. */
export function runStreamed(operations: OperationPipeline, args: ExecutionArgs) {
  return getOperationAST(args.document, args.operationName)?.operation === 'subscription'
    ? operations.subscribe(args)
    : operations.execute(args);
}
