/**
 * GraphQL over Server-Sent Events at /graphql (`Accept: text/event-stream`, GET or POST): the
 * "distinct connections" mode of the GraphQL over SSE protocol that GraphiQL and Yoga's clients
 * speak (./event-stream.ts). The operation goes through the
 * pipeline (./pipeline.ts) as over plain HTTP; what refuses it is the stream's one result. A
 * change subscription's events are written by ./change-events.ts (shared between subscribers).
 */
import type { ExecutionResult } from 'graphql';
import { changeEventResponse } from './change-events.ts';
import { event, eventStream } from './event-stream.ts';
import type { GraphQLPipeline, OperationRequest, ReadyOperation } from './pipeline.ts';
import { Refusal } from './pipeline.ts';
import { changeStreamOf } from './subscriptions.ts';

/**
 * The answer to a request over SSE that the pipeline prepared (`ready`), or refused: the refusal
 * as the stream's one result, a query's result, or a subscription's stream.
 */
export async function sseAnswer(
  pipeline: GraphQLPipeline,
  request: OperationRequest,
  ready: ReadyOperation | Refusal,
): Promise<Response> {
  if (ready instanceof Refusal) return eventsResponse(once({ errors: ready.errors }));
  const result = await pipeline.run(request, ready);
  if (!(Symbol.asyncIterator in result)) return eventsResponse(once(result));
  const changes = changeStreamOf(ready.args.contextValue);
  // The change subscription's events, made once for its subscribers (./change-events.ts).
  if (changes) return changeEventResponse(pipeline, ready, changes);
  return eventsResponse(result);
}

async function* once(result: ExecutionResult): AsyncGenerator<ExecutionResult> {
  yield result;
}

/** An event stream of results, each as an event; the results ended when the client goes away. */
function eventsResponse(results: AsyncGenerator<ExecutionResult>): Response {
  return eventStream(
    async () => {
      const next = await results.next();
      return next.done ? null : event(next.value);
    },
    () => results.return(undefined),
  );
}
