/**
 * Reading a request body within a limit, counted while it arrives: nothing past the limit is
 * kept. From the Node request when the server handed one over: measured, going through the
 * fetch-API Request and its web stream cost a tenth of a small request's CPU. In-memory requests
 * (tests) are read from their Request.
 *
 * Over the limit, the answer (413, then the connection is closed) waits until the client has sent
 * the rest, which is read and thrown away, or for DISCARD_MS at most: a connection closed while
 * its client is still sending is reset, and a reset can make the client lose the answer it was
 * sent (RFC 9112 §9.6). Memory stays flat either way; time and bandwidth are bounded.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { HttpError, payloadTooLarge } from './errors.ts';

const CLIENT_GONE = 'the client closed the connection before the end of the body';

/** How long the rest of an oversized body is read and thrown away before the 413 is sent. */
export const DISCARD_MS = 2000;

/** Bodies already read, by request: a body is a stream, read once, and more than one layer needs it (idempotency keys, handlers). */
const bodies = new WeakMap<Request, Buffer>();

export async function readBody(c: Context, limit: number): Promise<Buffer> {
  const read = bodies.get(c.req.raw);
  if (read) {
    if (read.length > limit) payloadTooLarge(limit);
    return read;
  }
  const body = await readOnce(c, limit);
  bodies.set(c.req.raw, body);
  refuseContentCoding(c);
  return body;
}

/**
 * A body sent compressed (Content-Encoding: gzip, ...) would be read as if it were not: 415, with
 * the one coding taken (RFC 9110 §15.5.16). Checked once the body is read, so that the connection
 * stays usable.
 */
function refuseContentCoding(c: Context): void {
  const coding = c.req.header('content-encoding');
  if (coding === undefined || coding.split(',').every((part) => /^\s*identity\s*$/i.test(part))) return;
  throw new HttpError(
    415,
    'unsupported_media_type',
    `Content-Encoding ${JSON.stringify(coding)} is not supported: send the body uncompressed`,
    { 'Accept-Encoding': 'identity' },
  );
}

async function readOnce(c: Context, limit: number): Promise<Buffer> {
  const declared = Number(c.req.header('content-length'));
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (declared > limit) {
    if (incoming) await discardRest(incoming);
    payloadTooLarge(limit);
  }
  if (incoming) return readIncoming(incoming, limit);
  // Web streams are async iterable in Node; the DOM typings do not say so.
  const stream = c.req.raw.body as unknown as AsyncIterable<Uint8Array> | null;
  if (!stream) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) payloadTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The body of a Node request, by its events (leaving a for-await loop would destroy the socket). */
function readIncoming(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  // Gone before we began (it waited its turn, ./concurrency.ts): its 'close' has been and gone.
  if (incoming.destroyed) return Promise.reject(new Error(CLIENT_GONE));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      chunks.length = 0;
      discardRest(incoming).then(() => {
        try {
          payloadTooLarge(limit);
        } catch (error) {
          reject(error);
        }
      });
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    // The client went away before the end: nobody is left to answer.
    const onClose = () => onError(new Error(CLIENT_GONE));
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** Reads and throws away what is left of a body, until its end or DISCARD_MS. */
function discardRest(incoming: IncomingMessage): Promise<void> {
  if (incoming.readableEnded || incoming.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      incoming.off('data', ignore).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const ignore = () => undefined;
    const timer = setTimeout(done, DISCARD_MS);
    incoming.on('data', ignore).on('end', done).on('close', done).on('error', done);
    incoming.resume();
  });
}
