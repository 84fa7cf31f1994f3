/**
 * OpenTelemetry tracing, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set: a span per HTTP
 * request (continuing a caller's W3C `traceparent`), per GraphQL phase (parse, validate,
 * execute), per DataLoader batch and per SQL statement (its text, never its values), exported
 * over OTLP/HTTP (JSON) in batches. Off, nothing of OpenTelemetry is loaded and each hook below
 * costs one test of a variable: the SDK is imported by `startTracing`, not by this module.
 */
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { Logger } from './logger.ts';

interface Tracing {
  tracer: Tracer;
  api: typeof import('@opentelemetry/api');
  shutdown(): Promise<void>;
}

let tracing: Tracing | undefined;

/** Whether spans are being recorded (for a hook that has work of its own to skip). */
export function tracingOn(): boolean {
  return tracing !== undefined;
}

/**
 * Starts exporting spans to `endpoint` (the OTLP/HTTP base URL; traces go to `/v1/traces`). The
 * SDK's own settings (OTEL_BSP_SCHEDULE_DELAY, OTEL_EXPORTER_OTLP_HEADERS, ...) apply.
 */
export async function startTracing(endpoint: string, serviceName: string, logger: Logger): Promise<void> {
  const [api, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // The global tracer provider, AsyncLocalStorage for the active span, W3C trace context.
  provider.register();
  tracing = { tracer: provider.getTracer('master-data-gateway'), api, shutdown: () => provider.shutdown() };
  logger.info({ endpoint }, 'tracing: spans exported over OTLP/HTTP');
}

/** Sends the spans not yet exported (at shutdown). */
export async function stopTracing(): Promise<void> {
  await tracing?.shutdown();
  tracing = undefined;
}

/** Marks `span` as failed with `error`, which goes on up. */
function failed(span: Span, error: unknown, api: Tracing['api']): never {
  span.recordException(error as Error);
  span.setStatus({ code: api.SpanStatusCode.ERROR });
  throw error;
}

/** Runs `work` in a span named `name` (a child of the active one) when tracing is on; as it is otherwise. */
export function traced<T>(name: string, attributes: Attributes, work: (span?: Span) => Promise<T>): Promise<T> {
  if (!tracing) return work();
  const { tracer, api } = tracing;
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failed(span, error, api);
    } finally {
      span.end();
    }
  });
}

/**
 * The span of an HTTP request: a server span that continues the caller's trace when its headers
 * carry a `traceparent`. `finish` names it after the matched route and sets the status.
 */
export function tracedRequest<T>(
  method: string,
  headers: Headers,
  work: () => Promise<T>,
  finish: (span: Span) => void,
): Promise<T> {
  if (!tracing) return work();
  const { tracer, api } = tracing;
  const getter = { keys: (h: Headers) => [...h.keys()], get: (h: Headers, key: string) => h.get(key) ?? undefined };
  const parent: Context = api.propagation.extract(api.context.active(), headers, getter);
  return tracer.startActiveSpan(method, { kind: api.SpanKind.SERVER }, parent, async (span) => {
    try {
      return await work();
    } finally {
      finish(span);
      span.end();
    }
  });
}

/** A DataLoader's batch function, with a span per batch (`dataloader.batch`, its loader and size) when tracing is on. */
export function tracedBatch<K extends readonly unknown[], A extends unknown[], R>(
  loader: string,
  batch: (keys: K, ...rest: A) => Promise<R>,
): (keys: K, ...rest: A) => Promise<R> {
  return (keys, ...rest) =>
    tracing
      ? traced('dataloader.batch', { 'dataloader.name': loader, 'dataloader.batch_size': keys.length }, () =>
          batch(keys, ...rest),
        )
      : batch(keys, ...rest);
}

/** A SQL statement's span (`db.query`): the text with its placeholders, never the values. */
export function tracedStatement<T>(system: 'postgresql' | 'sqlite', text: string, run: () => Promise<T>): Promise<T> {
  if (!tracing) return run();
  return traced('db.query', { 'db.system': system, 'db.statement': text }, run);
}

/** `traced` for work that does not wait (parsing, validation, SQLite's synchronous statements). */
export function tracedSync<T>(name: string, attributes: Attributes, work: () => T): T {
  if (!tracing) return work();
  const { tracer, api } = tracing;
  return tracer.startActiveSpan(name, { attributes }, (span) => {
    try {
      return work();
    } catch (error) {
      failed(span, error, api);
    } finally {
      span.end();
    }
  });
}
