/**
 * The routes that answer without a token, as an attacker sees them (docs/reference/security.md): on the
 * network, behind a reverse proxy on the same host, and through the user's own browser. One test
 * per finding; each fails without its fix.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, DEMO_CLIENT_NAME } from '../../src/auth/clients.ts';
import type { Config } from '../../src/config.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { migratedDatabase, type MigratedDatabase } from '../support/databases.ts';
import { getTokens } from '../support/oauth.ts';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The token GraphiQL's Headers tab is pre-filled with, if any. */
const prefilledToken = (html: string) => html.match(/Bearer (mda_[A-Za-z0-9_-]+)/)?.[1];

describe('open routes as an attacker sees them', () => {
  let database: MigratedDatabase;
  let t: TestApp;
  let token: string;
  const apps: TestApp[] = [];

  /** An app over the same database with other settings. */
  const appWith = (overrides: Partial<Config>) => {
    const app = testApp(database, overrides);
    apps.push(app);
    return app;
  };

  /** A request as the Node server hands it over: from a socket at `address`, to `url` (its host is the Host header). */
  const fetchFrom = (app: TestApp, address: string, url: string, headers: Record<string, string> = {}) =>
    Promise.resolve(
      app.app.fetch(new Request(url, { headers }), {
        incoming: Object.assign(Readable.from([]), { socket: { remoteAddress: address } }),
      }),
    );

  const page = async (address: string, url: string, headers: Record<string, string> = {}) => {
    const res = await fetchFrom(t, address, url, { Accept: HTML, ...headers });
    expect(res.status).toBe(200);
    return { headers: res.headers, token: prefilledToken(await res.text()) };
  };

  beforeAll(async () => {
    database = await migratedDatabase('sqlite');
    // The demo client the embedded default creates on its first start.
    await createClient(database.db.prisma, DEMO_CLIENT_NAME, ['read', 'write']);
    t = testApp(database);
    token = (await getTokens(t, await createClient(database.db.prisma, 'monitoring', ['read']))).access_token;
  });
  afterAll(async () => database?.cleanup());

  describe('the GraphiQL page and its demo token', () => {
    it('gives the token to a browser on this machine that reaches it by a loopback name', async () => {
      for (const url of [
        'http://localhost:4000/graphql',
        'http://127.0.0.1:4000/graphql',
        'http://[::1]:4000/graphql',
      ]) {
        expect((await page('127.0.0.1', url)).token, url).toMatch(/^mda_/);
      }
    });

    it("DNS rebinding: a page of another site, resolved to 127.0.0.1 in the user's browser, gets no token", async () => {
      // The attacker's name points at 127.0.0.1: the browser connects to the service from
      // loopback, and the page is same-origin with the attacker's script, which could read it.
      expect((await page('127.0.0.1', 'http://rebind.attacker.example:4000/graphql')).token).toBeUndefined();
      expect((await page('::1', 'http://203.0.113.9:4000/graphql')).token).toBeUndefined();
    });

    it('a reverse proxy on the same host: a request that carries any forwarding header gets no token', async () => {
      // Through such a proxy every remote client's connection comes from 127.0.0.1.
      for (const [name, value] of Object.entries({
        'X-Forwarded-For': '198.51.100.4',
        Forwarded: 'for=198.51.100.4',
        Via: '1.1 proxy',
        'X-Real-IP': '198.51.100.4',
        'X-Forwarded-Host': 'masterdata.example',
        'X-Forwarded-Proto': 'https',
      })) {
        expect(
          (await page('127.0.0.1', 'http://localhost:4000/graphql', { [name]: value })).token,
          name,
        ).toBeUndefined();
      }
    });

    it('another machine, and any request behind trusted proxies, gets no token', async () => {
      expect((await page('192.0.2.10', 'http://localhost:4000/graphql')).token).toBeUndefined();
      const proxied = appWith({ trustProxy: 1 });
      const res = await fetchFrom(proxied, '127.0.0.1', 'http://localhost:4000/graphql', {
        Accept: HTML,
        'X-Forwarded-For': '127.0.0.1',
      });
      expect(prefilledToken(await res.text())).toBeUndefined();
    });

    it('clickjacking: no other site may frame the page (it runs operations at a click), keep it or see its URL', async () => {
      const { headers } = await page('127.0.0.1', 'http://localhost:4000/graphql');
      expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(headers.get('x-frame-options')).toBe('DENY');
      expect(headers.get('cache-control')).toBe('no-store');
      expect(headers.get('referrer-policy')).toBe('no-referrer');
      expect(headers.get('x-content-type-options')).toBe('nosniff');
    });
  });

  describe('/readyz', () => {
    it('a flood of probes costs the database at most one statement a second, not one per probe', async () => {
      const before = database.db.statementCount;
      const answers = await Promise.all(Array.from({ length: 50 }, () => t.request('/readyz')));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(database.db.statementCount - before).toBeLessThanOrEqual(1);
      // Within the second, a later probe reuses the answer.
      const again = database.db.statementCount;
      expect((await t.request('/readyz')).status).toBe(200);
      expect(database.db.statementCount - again).toBe(0);
      // After it, a probe asks the database again.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const later = database.db.statementCount;
      expect(await (await t.request('/readyz')).json()).toEqual({ status: 'ready', database: 'sqlite' });
      expect(database.db.statementCount - later).toBe(1);
    });
  });

  describe('the published schema and the metrics', () => {
    it('with introspection off, the SDL is no longer handed to anyone: it needs a token like the API', async () => {
      expect((await t.request('/graphql/schema.graphql')).status).toBe(200);
      const closed = appWith({ graphqlIntrospection: false });
      const anonymous = await closed.request('/graphql/schema.graphql');
      expect(anonymous.status).toBe(401);
      expect(await anonymous.text()).not.toContain('type Query');
      const withToken = await closed.request('/graphql/schema.graphql', {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(withToken.status).toBe(200);
      expect(await withToken.text()).toContain('type Query');
    });

    it('METRICS=false takes /metrics away (it tells anyone the traffic per route and the operation names clients use)', async () => {
      expect((await t.request('/metrics')).status).toBe(200);
      const off = appWith({ metrics: false });
      expect((await off.request('/metrics')).status).toBe(401);
      expect((await off.request('/metrics', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(404);
    });

    it('unauthenticated requests cannot grow the metrics: unknown paths share one route label', async () => {
      for (let i = 0; i < 20; i++) await t.request(`/no-such-path-${i}`);
      const text = await (await t.request('/metrics')).text();
      expect(text).not.toContain('no-such-path');
      expect(text).toMatch(/route="unmatched"/);
    });
  });

  describe('what error bodies quote', () => {
    it('an error that quotes the request (a 404 naming the path) tells browsers not to sniff it for HTML', async () => {
      const res = await t.request('/%3Cscript%3Ealert(1)%3C%2Fscript%3E', {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    });
  });
});
