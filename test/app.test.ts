/** Health, readiness, metrics, logs and the base path, through app.fetch (real HTTP semantics, no port). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedDatabase, providers, type MigratedDatabase } from './support/databases.ts';
import { testApp } from './support/app.ts';
import { createClient } from '../src/auth/clients.ts';
import { bearer, getTokens } from './support/oauth.ts';

describe.each(providers)('service endpoints on %s', (provider) => {
  let database: MigratedDatabase;
  let token: string;
  beforeAll(async () => {
    database = await migratedDatabase(provider);
    const client = await createClient(database.db.prisma, 'test', ['read', 'write']);
    token = (await getTokens(testApp(database), client)).access_token;
  });
  afterAll(async () => database?.cleanup());

  it('GET /healthz answers 200 JSON while the process is up', async () => {
    const res = await testApp(database).request('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database is reachable, 503 while draining', async () => {
    const t = testApp(database);
    const ready = await t.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: provider });
    t.app.startDraining();
    const draining = await t.request('/readyz');
    expect(draining.status).toBe(503);
    expect(await draining.json()).toEqual({ status: 'draining' });
  });

  it('GET /metrics exposes request counts and durations by route, and the SQL statement count', async () => {
    const t = testApp(database);
    const scrape = async () => (await t.request('/metrics')).text();
    const statements = (text: string) => Number(text.match(/^db_statements_total (\d+)$/m)![1]);
    const first = await scrape();
    await t.request('/readyz');
    await t.request('/readyz');
    await t.request('/no/such/path', bearer(token));
    await t.request('/no/such/path');
    const res = await t.request('/metrics');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/readyz",status="200"\} 2$/m);
    expect(text).toMatch(/^http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
    expect(text).toMatch(/^http_requests_total\{method="GET",route="unmatched",status="401"\} 1$/m);
    expect(text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/readyz"\} 2$/m);
    // The two readiness probes within a second share one check of one statement; the token was
    // validated once (1 more).
    expect(statements(text) - statements(first)).toBe(2);
  });

  it('writes one JSON log line per request, without query strings or headers', async () => {
    const t = testApp(database);
    await t.request('/healthz?token=abc', { headers: { Authorization: 'Bearer secret-token-value' } });
    const lines = t.logs().filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', method: 'GET', path: '/healthz', route: '/healthz', status: 200 });
    expect(typeof lines[0]!.duration_ms).toBe('number');
    expect(t.rawLogs()).not.toContain('secret-token-value');
    expect(t.rawLogs()).not.toContain('token=abc');
  });

  it('answers unknown paths with a shape-A 404 (once authenticated)', async () => {
    const res = await testApp(database).request('/nowhere', bearer(token));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: { status: 404, detail: 'no resource at GET /nowhere' } });
  });

  it('refuses a body over MAX_BODY_BYTES on any route with 413 shape B, while reading it', async () => {
    const t = testApp(database, { maxBodyBytes: 1024 });
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 512;
        controller.enqueue(new Uint8Array(512).fill(0x20));
      },
    });
    const res = await t.request('/customers', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: { code: 'payload_too_large', http_code: 413, message: 'the request body exceeds 1024 bytes' },
    });
    expect(pulled).toBeLessThan(8 * 1024);
  });

  it('says a limit of one byte in the singular', async () => {
    const t = testApp(database, { maxBodyBytes: 1 });
    const res = await t.request('/customers', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.message).toBe('the request body exceeds 1 byte');
    await t.app.close();
  });

  it.each([
    '/customers/%00',
    '/customers?filter%5Breference%5D=a%00b',
    '/customers?x=%E0%A4%A',
    '/customers?x=%ED%A0%80',
  ])('refuses %s (NUL or malformed UTF-8 in the URL) with 400 shape B before anything else', async (path) => {
    const t = testApp(database);
    const before = database.db.statementCount;
    const res = await t.request(path, bearer(token));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'invalid_parameter', http_code: 400 });
    expect(database.db.statementCount).toBe(before);
  });

  it('while draining, every response carries Connection: close so keep-alive clients leave', async () => {
    const t = testApp(database);
    expect((await t.request('/healthz')).headers.get('connection')).toBeNull();
    t.app.startDraining();
    expect((await t.request('/healthz')).headers.get('connection')).toBe('close');
    expect((await t.request('/nowhere', bearer(token))).headers.get('connection')).toBe('close');
  });

  it('serves every route under BASE_PATH when one is set', async () => {
    const t = testApp(database, { basePath: '/md/v1' });
    expect((await t.request('/md/v1/healthz')).status).toBe(200);
    expect((await t.request('/md/v1/readyz')).status).toBe(200);
    expect((await t.request('/healthz')).status).toBe(404);
  });
});
