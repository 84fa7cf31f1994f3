/**
 * The HTTP calls of one endpoint's deliveries, signed as the Standard Webhooks specification says
 * (standardwebhooks.com): headers `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, one per secret, space-separated while a
 * rotated secret is still honoured).
 *
 * Each endpoint has a pool of keep-alive connections (undici's Pool: about half the CPU of
 * node:http's client per call), as many as the calls it may have in flight, so that a call is
 * written as soon as it is made. An attempt never follows a redirect (a 3xx is a failed attempt);
 * connecting may take at most the timeout, and once the call is written its complete answer
 * (status, headers, body) at most the timeout too: a call is timed out only after it was sent,
 * and only once the answers already received were read (a busy event loop runs a due timer
 * before it reads its sockets: an answer that came in time is not taken for a timeout, and the
 * call is not sent twice). It keeps at most the first 1 KB of the answer and reads no more than
 * 64 KB of it: a slow or huge answer cannot hold the deliverer.
 */
import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import { type Dispatcher, Pool } from 'undici';
import type { Targets } from './targets.ts';

/** The part of an answer kept with each attempt. */
export const KEPT_ANSWER_BYTES = 1024;
/** Past this, an answer's body is not read: the connection is closed. */
const READ_ANSWER_BYTES = 64 * 1024;

export interface AttemptResult {
  /** The answer's status; undefined when none came (error says why). */
  status?: number;
  error?: string;
  latencyMs: number;
  /** The first KEPT_ANSWER_BYTES of the answer, as text. */
  response?: string;
}

/** A secret's key (`whsec_<base64 key>`), decoded once per deliverer rather than per call. */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
}

/** `webhook-signature`'s value: `v1,<signature>` for each key. */
export function sign(keys: readonly Buffer[], id: string, timestamp: number, body: Buffer): string {
  let value = '';
  for (const key of keys) {
    const signature = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
    value = value === '' ? `v1,${signature}` : `${value} v1,${signature}`;
  }
  return value;
}

export interface Message {
  id: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** The JSON body, encoded once for every endpoint and attempt. */
  body: Buffer;
  signature: string;
}

/** Without NUL, which PostgreSQL's text cannot hold. */
const storable = (text: string, by: string) => text.replaceAll('\0', by);

/** The calls of one endpoint: its connections, kept alive from one delivery to the next. */
export class Caller {
  private readonly pool: Pool;
  private readonly path: string;
  /** The URL's own address, when it is one the policy refuses: nothing is called. */
  private readonly refused: string | undefined;

  constructor(
    private readonly target: URL,
    targets: Targets,
    private readonly options: { connections: number; timeoutMs: number },
  ) {
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const refusal = isIP(host) ? targets.refusal(host) : undefined;
    this.refused = refusal && `${host} is ${refusal}: not called`;
    this.path = `${target.pathname}${target.search}`;
    this.pool = new Pool(target.origin, {
      connections: options.connections,
      pipelining: 1,
      // Each connection's address is checked when it is opened (a name resolving elsewhere now is refused).
      connect: { lookup: targets.guardedLookup() as never, timeout: options.timeoutMs },
      // The answer's time is kept by post() from the moment the call is written.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** One attempt. */
  post(message: Message): Promise<AttemptResult> {
    const started = performance.now();
    if (this.refused) return Promise.resolve({ error: this.refused, latencyMs: 0 });
    const { timeoutMs } = this.options;
    return new Promise((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      let controller: Dispatcher.DispatchController | undefined;
      let status: number | undefined;
      let read = 0;
      let kept: Buffer[] | undefined;
      const finish = (result: Omit<AttemptResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, latencyMs: Math.round(performance.now() - started) });
      };
      const answered = () =>
        finish({
          status,
          response: kept ? storable(Buffer.concat(kept).toString('utf8').slice(0, KEPT_ANSWER_BYTES), '\uFFFD') : '',
        });
      const handler: Dispatcher.DispatchHandler = {
        // Written on a connection: from now on, the answer has timeoutMs.
        onRequestStart: (c) => {
          controller = c;
          clearTimeout(timer);
          timer = setTimeout(
            () =>
              setImmediate(() => {
                if (settled) return;
                finish({ error: `no complete answer within ${timeoutMs} ms` });
                controller?.abort(new Error('timed out'));
              }),
            timeoutMs,
          );
        },
        onResponseStart: (_c, statusCode) => {
          status = statusCode;
        },
        onResponseData: (_c, chunk) => {
          if (read < KEPT_ANSWER_BYTES) (kept ??= []).push(chunk.subarray(0, KEPT_ANSWER_BYTES - read));
          read += chunk.length;
          if (read > READ_ANSWER_BYTES && !settled) {
            answered();
            controller?.abort(new Error('answer too long'));
          }
        },
        onResponseEnd: answered,
        onResponseError: (_c, error) => {
          // The status came, and then the body was cut: answered as far as it went.
          if (status !== undefined && status >= 200) answered();
          else finish({ error: storable(error.message, '') });
        },
      };
      this.pool.dispatch(
        {
          origin: this.target.origin,
          path: this.path,
          method: 'POST',
          headers: [
            'content-type',
            'application/json',
            'user-agent',
            'master-data-gateway-webhooks',
            'webhook-id',
            message.id,
            'webhook-timestamp',
            String(message.timestamp),
            'webhook-signature',
            message.signature,
          ],
          body: message.body,
        },
        handler,
      );
    });
  }

  /** Closes the connections; calls in flight end as failed (their deliverer has stopped). */
  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
