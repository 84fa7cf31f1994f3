/**
 * GraphQL over Server-Sent Events at /graphql (`Accept: text/event-stream`, GET or POST): Yoga's
 * own transport, the "distinct connections" mode of the GraphQL over SSE protocol that Yoga and
 * GraphiQL speak: `event: next` for each result, `event: complete` at the end, and a comment line
 * every 12 s so that proxies keep an idle stream open. Yoga parses the request and streams;
 * the operation is checked and run by our pipeline (./streaming.ts), as over plain HTTP. A
 * change subscription's events are written by ./change-events.ts (shared between subscribers).
 */
import { getOperationAST } from 'graphql';
import { createYoga, isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { BearerAuth } from '../auth/tokens.ts';
import { changeEventResponse } from './change-events.ts';
import type { OperationPipeline } from './operation.ts';
import { schema } from './schema.ts';
import { prepareStreamed, runStreamed, type StreamedParams } from './streaming.ts';
import { changeStreamOf } from './subscriptions.ts';

export type SseTransport = (request: Request, auth: BearerAuth) => Promise<Response>;

/** A change subscription's answer, made by ./change-events.ts rather than Yoga's SSE processor. */
class ChangeEvents {
  constructor(readonly response: Response) {}
}

export function sseTransport(operations: OperationPipeline, graphqlPath: string): SseTransport {
  const runOurs: Plugin<{ auth: BearerAuth }> = {
    onParams({ setParamsHandler }) {
      setParamsHandler(async ({ params, context }) => {
        const { auth } = context as unknown as { auth: BearerAuth };
        const prepared = await prepareStreamed(operations, auth, params as StreamedParams);
        if (!('document' in prepared)) return { errors: prepared };
        const operation = getOperationAST(prepared.document, prepared.operationName);
        const result = await runStreamed(operations, prepared);
        const stream = isAsyncIterable(result) ? changeStreamOf(prepared.contextValue) : undefined;
        if (operation?.operation !== 'subscription' || !stream) return result;
        return new ChangeEvents(changeEventResponse(operations, prepared, operation, stream)) as never;
      });
    },
    onResultProcess({ result, setResultProcessor }) {
      if (result instanceof ChangeEvents) setResultProcessor(() => result.response, 'text/event-stream');
    },
  };
  const yoga = createYoga<{ auth: BearerAuth }>({
    // Yoga wants a schema; the operations run through the pipeline above.
    schema,
    graphqlEndpoint: graphqlPath,
    graphiql: false,
    landingPage: false,
    logging: false,
    cors: false,
    maskedErrors: false,
    // Node's own streams: with Yoga's stand-ins, a client that goes away is only noticed at the
    // next ping (12 s), and its stream holds its place (and its follower) until then.
    fetchAPI: { Request, Response, ReadableStream, TextEncoder, TextDecoder, Headers, URL, URLSearchParams, fetch },
    plugins: [runOurs],
  });
  return async (request, auth) => yoga.fetch(request, { auth });
}
