/**
 * The bytes of GraphQL over Server-Sent Events ("distinct connections" mode), which both writers
 * of event streams use (./sse.ts, ./change-events.ts): `event: next` for each result, `event:
 * complete` at the end, and a comment line first and every 12 s, so that proxies keep an idle
 * stream open.
 */
const encoder = new TextEncoder();
export const PING = encoder.encode(':\n\n');
export const COMPLETE = encoder.encode('event: complete\ndata:\n\n');
/** A comment line this often keeps proxies from closing an idle stream. */
export const PING_MS = 12_000;

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'Content-Encoding': 'none',
};

/** A result as an event. */
export function event(result: unknown): Uint8Array {
  return encoder.encode(`event: next\ndata: ${JSON.stringify(result)}\n\n`);
}
