/**
 * One HTTP attempt of a delivery, signed as the Standard Webhooks specification says
 * (standardwebhooks.com): headers `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, one per secret, space-separated while a
 * rotated secret is still honoured).
 *
 * An attempt never follows a redirect (a 3xx is a failed attempt), never waits longer than its
 * timeout in all (connection, answer, body), and keeps at most the first 1 KB of the answer and
 * reads no more than 64 KB of it: a slow or huge answer cannot hold the deliverer.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
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

/** `webhook-signature`'s value: `v1,<signature>` for each secret (`whsec_<base64 key>`). */
export function sign(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

export interface Message {
  id: string;
  /** Seconds since the epoch. */
  timestamp: number;
  body: string;
}

/**
 * Keep-alive connections per endpoint: a delivery reuses the connection of the one before it
 * (its address was checked when it was opened).
 */
export function agentsFor(targets: Targets, maxSockets: number) {
  const options = { keepAlive: true, maxSockets, lookup: targets.guardedLookup() as never };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

export type Agents = ReturnType<typeof agentsFor>;

export function post(
  target: URL,
  message: Message,
  secrets: readonly string[],
  { agents, targets, timeoutMs, signal }: { agents: Agents; targets: Targets; timeoutMs: number; signal?: AbortSignal },
): Promise<AttemptResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const refused = isIP(host) ? targets.refusal(host) : undefined;
  if (refused) return Promise.resolve({ error: `${host} is ${refused}: not called`, latencyMs: 0 });
  const body = Buffer.from(message.body);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<AttemptResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: latency() });
    };
    const secure = target.protocol === 'https:';
    const request = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      signal,
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        'user-agent': 'master-data-gateway-webhooks',
        'webhook-id': message.id,
        'webhook-timestamp': String(message.timestamp),
        'webhook-signature': sign(secrets, message.id, message.timestamp, message.body),
      },
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish({ error: `no complete answer within ${timeoutMs} ms` });
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.message.replaceAll('\0', '') }));
    request.on('response', (answer) => {
      const chunks: Buffer[] = [];
      let read = 0;
      // NUL cannot be stored in PostgreSQL's text: replaced.
      const done = () =>
        finish({
          status: answer.statusCode,
          response: Buffer.concat(chunks).toString('utf8').slice(0, KEPT_ANSWER_BYTES).replaceAll('\0', '\uFFFD'),
        });
      answer.on('data', (chunk: Buffer) => {
        if (read < KEPT_ANSWER_BYTES) chunks.push(chunk.subarray(0, KEPT_ANSWER_BYTES - read));
        read += chunk.length;
        if (read > READ_ANSWER_BYTES) {
          done();
          answer.destroy();
        }
      });
      answer.on('end', done);
      answer.on('error', done);
      answer.on('close', done);
    });
    request.end(body);
  });
}
