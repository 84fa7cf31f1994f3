/**
 * Per-request log line and metrics. The route label is the matched route pattern (never the
 * raw path) so metric cardinality stays bounded; requests no route answered share one label.
 */
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';

export function observeRequests(logger: Logger, metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    // Only middleware matched (a wildcard pattern): no route answered, e.g. a 404 or a 401 on an unknown path.
    const route = c.req.routePath.endsWith('*') ? 'unmatched' : c.req.routePath;
    const status = String(c.res.status);
    metrics.httpRequests.inc({ method: c.req.method, route, status });
    metrics.httpDuration.observe({ method: c.req.method, route }, seconds);
    logger.info(
      {
        method: c.req.method,
        path: c.req.path,
        route,
        status: c.res.status,
        duration_ms: Math.round(seconds * 10_000) / 10,
      },
      'request',
    );
  };
}
