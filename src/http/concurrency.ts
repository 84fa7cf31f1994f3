/**
 * A bound on the API requests a replica works on at once; the others wait their turn, in order
 * of arrival.
 *
 * Why: every request in progress holds what it has read and what it is building until its answer
 * is written. Fifty GraphQL requests for 50 products with their bills of material (a 490 KB
 * answer each) held 420 MB at once, where PostGraphile held 350; the work itself cannot go faster
 * than the CPU and the database pool allow, so running fewer at once costs no throughput and
 * bounds the memory. Measured in the benchmark's concurrency sweep (bench/README.md).
 */
import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';

/** How many requests wait for a slot now: what background work (webhook calls) yields to. */
export interface RequestQueue {
  readonly waiting: number;
}

/**
 * At most `limit` requests at once, except on the `exempt` paths, which never wait. `queue`
 * tells others how many wait.
 */
export function limitConcurrency(
  limit: number,
  exempt: readonly string[] = [],
  queue?: { waiting: number },
): MiddlewareHandler {
  const exemptPaths = new Set(exempt);
  let running = 0;
  const waiting: (() => void)[] = [];
  const counted = queue ?? { waiting: 0 };
  return async (c, next) => {
    if (exemptPaths.has(c.req.path)) return next();
    if (running < limit) running++;
    // The slot is handed over, not released and taken again: no newcomer overtakes a waiter.
    else {
      counted.waiting += 1;
      await new Promise<void>((resolve) => waiting.push(resolve));
      counted.waiting -= 1;
    }
    try {
      // A client that left while its request waited has nobody to answer: its turn is passed on
      // (499, nginx's "client closed request", for the log and the metrics).
      // The socket, not the request: a request read whole is not destroyed when its socket is reset.
      if ((c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.destroyed) {
        return c.body(null, 499 as 200);
      }
      await next();
    } finally {
      const nextInLine = waiting.shift();
      if (nextInLine) nextInLine();
      else running--;
    }
  };
}
