/**
 * The bytes of GraphQL over Server-Sent Events ("distinct connections" mode), which both writers
 * of event streams use (./sse.ts, ./change-events.ts): `event: next` for each result, `event:
 * complete` at the end, and a comment line first and every 12 s, so that proxies keep an idle
 * stream open.
 */
const encoder = new TextEncoder();
const PING = encoder.encode(':\n\n');
const COMPLETE = encoder.encode('event: complete\ndata:\n\n');
/** A comment line this often keeps proxies from closing an idle stream. */
const PING_MS = 12_000;

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'Content-Encoding': 'none',
};

/** A result as an event. */
export function event(result: unknown): Uint8Array {
  return encoder.encode(`event: next\ndata: ${JSON.stringify(result)}\n\n`);
}

/**
 * An event stream's answer: a ping first and every PING_MS, then what `next` gives, one write at a
 * time as the client takes them, until it gives null (then `complete`); `stop` when the client
 * goes away.
 */
export function eventStream(next: () => Promise<Uint8Array | null>, stop: () => Promise<unknown>): Response {
  let ping: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(PING);
        ping = setInterval(() => {
          if (controller.desiredSize !== null && controller.desiredSize > 0) controller.enqueue(PING);
        }, PING_MS);
      },
      async pull(controller) {
        const bytes = await next();
        if (bytes) controller.enqueue(bytes);
        else {
          clearInterval(ping);
          controller.enqueue(COMPLETE);
          controller.close();
        }
      },
      async cancel() {
        clearInterval(ping);
        await stop();
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
