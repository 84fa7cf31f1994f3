/**
 * OpenTelemetry tracing with a real OTLP/HTTP receiver, in this process: the service (as `npm
 * start` runs it) exports its spans there when OTEL_EXPORTER_OTLP_ENDPOINT is set. A GraphQL
 * request sent with a W3C `traceparent` gives one trace that continues the caller's: the HTTP
 * request's span, the operation's phases, its DataLoader batches and its SQL statements (their
 * text, never their values). Unset, no OpenTelemetry module is even loaded.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from './support/oauth.ts';
import { freePort } from './support/ports.ts';
import { type RunningService, startService } from './support/process.ts';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

/** An OTLP/HTTP (JSON) receiver: every span posted to /v1/traces. */
async function otlpReceiver(): Promise<{ url: string; spans: ExportedSpan[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
        for (const resource of payload.resourceSpans)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const attribute = (span: ExportedSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

describe('tracing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mdg-tracing-'));
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let service: RunningService;

  beforeAll(async () => {
    receiver = await otlpReceiver();
    service = await startService({
      DATABASE_URL: `file:${join(dir, 'db.sqlite')}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports one trace per request, continuing the caller’s: HTTP, GraphQL phases, DataLoader batches, SQL', async () => {
    // The demo client printed at the first start.
    const id = service.output().match(/client_id:\s+(\S+)/)![1]!;
    const secret = service.output().match(/client_secret:\s+(\S+)/)![1]!;
    const token = await fetch(`${service.baseUrl}/oauth/token.php`, {
      method: 'POST',
      headers: { Authorization: basic(id, secret), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);

    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const res = await fetch(`${service.baseUrl}/graphql`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        traceparent: `00-${traceId}-${callerSpan}-01`,
      },
      body: JSON.stringify({ query: '{ products(first: 3) { nodes { id unit { id reference } } } }' }),
    });
    expect(res.status).toBe(200);

    const deadline = Date.now() + 10_000;
    const ofTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    while (!ofTrace().some((s) => s.name === 'POST /graphql') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const spans = ofTrace();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const names = new Set(spans.map((s) => s.name));
    for (const name of [
      'POST /graphql',
      'graphql.parse',
      'graphql.validate',
      'graphql.execute',
      'dataloader.batch',
      'db.query',
    ])
      expect(names, name).toContain(name);

    const request = spans.find((s) => s.name === 'POST /graphql')!;
    expect(request.parentSpanId).toBe(callerSpan);
    expect(request.kind).toBe(2); // SERVER
    expect(attribute(request, 'http.response.status_code')).toEqual(expect.anything());
    // Every other span of the trace descends from the request's.
    const descends = (span: ExportedSpan): boolean =>
      span.parentSpanId === request.spanId || (!!span.parentSpanId && descends(byId.get(span.parentSpanId)!));
    for (const span of spans.filter((s) => s !== request)) expect(descends(span), span.name).toBe(true);

    const batch = spans.find((s) => s.name === 'dataloader.batch' && attribute(s, 'dataloader.name') === 'units')!;
    expect(batch, 'the units of the page, loaded in one batch').toBeDefined();
    expect(Number(attribute(batch, 'dataloader.batch_size'))).toBeGreaterThan(0);
    // Its statement is a child of the batch: the text, with a placeholder for the ids.
    const statement = spans.find((s) => s.name === 'db.query' && s.parentSpanId === batch.spanId)!;
    expect(attribute(statement, 'db.system')).toBe('sqlite');
    expect(String(attribute(statement, 'db.statement'))).toMatch(/^SELECT .*\?/s);
  });
});

describe('tracing unset', () => {
  it('loads no OpenTelemetry module', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdg-tracing-off-'));
    const auditFile = join(dir, 'modules.txt');
    const service = await startService({
      DATABASE_URL: `file:${join(dir, 'db.sqlite')}`,
      SEED_DEMO_DATA: 'false',
      NODE_OPTIONS: `--import=${new URL('./support/module-audit.mjs', import.meta.url).href}`,
      MODULE_AUDIT_FILE: auditFile,
    });
    try {
      expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(200);
      const modules = readFileSync(auditFile, 'utf8').split('\n');
      expect(modules.filter((url) => url.includes('/node_modules/@opentelemetry/'))).toEqual([]);
    } finally {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
