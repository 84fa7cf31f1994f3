/**
 * Per-request log line and metrics. The route label is the matched route pattern (never the
 * raw path) so metric cardinality stays bounded; requests no route answered share one label.
 */
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { tracedRequest } from '../observability/tracing.ts';

/** Matched route pattern, or `unmatched` when only middleware ran (a 404, a 401 on an unknown path). */
function routeOf(routePath: string): string {
  return routePath.endsWith('*') ? 'unmatched' : routePath;
}

/** The request's span when tracing is on (named after its route once matched); nothing otherwise. */
export function traceRequests(): MiddlewareHandler {
  return (c, next) =>
    tracedRequest(c.req.method, c.req.raw.headers, next, (span) => {
      const route = routeOf(c.req.routePath);
      span.updateName(`${c.req.method} ${route}`);
      span.setAttributes({
        'http.request.method': c.req.method,
        'http.route': route,
        'http.response.status_code': c.res.status,
      });
    });
}

export function observeRequests(logger: Logger, metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    const route = routeOf(c.req.routePath);
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
