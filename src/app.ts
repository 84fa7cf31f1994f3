/**
 * Builds the service as a fetch handler: no side effects, no listening (that is main.ts), so
 * tests call `app.fetch(new Request(...))` in memory.
 */
import { Hono } from 'hono';
import { requireBearer } from './auth/bearer.ts';
import { FailureThrottle, DEFAULT_THROTTLE, type ThrottleOptions } from './auth/throttle.ts';
import { tokenEndpoints } from './auth/token-endpoint.ts';
import { TokenService } from './auth/tokens.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { HttpError, shapeA, shapeB } from './http/errors.ts';
import { observeRequests } from './http/observe.ts';
import type { Logger } from './observability/logger.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';

export interface AppOptions {
  config: Config;
  db: Database;
  logger: Logger;
  /** Time source for token expiry and throttling windows (tests move it). */
  clock?: Clock;
  /** Failure throttling of the token endpoints. */
  throttle?: ThrottleOptions;
}

export interface App {
  /** Hono's fetch handler; the Node server passes its bindings (the socket) as `env`. */
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
  metrics: Metrics;
  /** Marks the service as draining: /readyz answers 503 so load balancers stop sending work. */
  startDraining(): void;
}

const READINESS_TIMEOUT_MS = 2000;

export function createApp({ config, db, logger, clock = systemClock, throttle = DEFAULT_THROTTLE }: AppOptions): App {
  const metrics = createMetrics(db);
  const tokens = new TokenService(db.prisma, clock, config.accessTokenTtl, config.refreshTokenTtl);
  let draining = false;
  const app = new Hono().basePath(config.basePath || '/');

  app.use('*', observeRequests(logger, metrics));
  app.use('*', requireBearer(tokens, config.basePath));
  app.route('/', tokenEndpoints({ tokens, throttle: new FailureThrottle(clock, throttle), logger }));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', async (c) => {
    if (draining) return c.json({ status: 'draining' }, 503);
    try {
      await Promise.race([
        db.prisma.$queryRawUnsafe('SELECT 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), READINESS_TIMEOUT_MS).unref()),
      ]);
      return c.json({ status: 'ready', database: db.provider });
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'readiness check failed');
      return c.json({ status: 'unavailable', database: db.provider }, 503);
    }
  });

  app.get('/metrics', async (c) =>
    c.body(await metrics.registry.metrics(), 200, { 'Content-Type': metrics.registry.contentType }),
  );

  app.notFound((c) => c.json(shapeA(404, `no resource at ${c.req.method} ${c.req.path}`), 404));

  app.onError((error, c) => {
    if (error instanceof HttpError) {
      return c.json(shapeB(error.status, error.code, error.message), error.status as 400, error.headers);
    }
    // Anything else is a bug or an outage: log it whole, answer without internals.
    logger.error({ err: error }, 'unhandled error');
    return c.json(shapeB(500, 'internal_error', 'the server could not complete the request'), 500);
  });

  return {
    fetch: (request, env) => app.fetch(request, env),
    metrics,
    startDraining: () => {
      draining = true;
    },
  };
}
