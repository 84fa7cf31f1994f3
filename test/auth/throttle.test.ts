/**
 * Throttling of the token endpoints (auth.md: "counted per address and per (address, client):
 * a stranger who knows a client_id cannot lock its owner out, and a client's own invalid_grant
 * never blocks its next grant"). Time moves with an injected clock; no test sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { DEFAULT_THROTTLE, FailureThrottle } from '../../src/auth/throttle.ts';
import { testApp } from '../support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import { TestClock, postForm, tokenRequest, type Client } from '../support/oauth.ts';

/** The shipped limits, without the slow-down delays (which are real time). */
const LIMITS = { ...DEFAULT_THROTTLE, delayStepMs: 0 };
const ATTACKER = '203.0.113.66';
const OWNER = '198.51.100.7';
const grant = { grant_type: 'client_credentials' };

describe.each(providers)('throttling of the token endpoint on %s', (provider) => {
  let database: MigratedDatabase;
  let client: Client;
  beforeAll(async () => {
    database = await migratedDatabase(provider);
    client = await createClient(database.db.prisma, 'erp', ['read', 'write']);
  });
  afterAll(async () => database?.cleanup());

  const wrongSecret = () => ({ ...client, client_secret: 'mds_guess' });

  it("ten wrong secrets from one address leave the owner's correct credentials working from another address at once", async () => {
    const clock = new TestClock();
    const t = testApp(database, {}, { clock, throttle: LIMITS });
    for (let i = 0; i < 10; i++) expect((await tokenRequest(t, wrongSecret(), grant, ATTACKER)).status).toBe(401);
    expect((await tokenRequest(t, client, grant, OWNER)).status).toBe(200);
    // Repeating the attack every minute changes nothing for the owner.
    clock.advance(60);
    for (let i = 0; i < 10; i++) await tokenRequest(t, wrongSecret(), grant, ATTACKER);
    expect((await tokenRequest(t, client, grant, OWNER)).status).toBe(200);
  });

  it('the attacking address itself is refused with 429 and Retry-After until its window passes, then served', async () => {
    const clock = new TestClock();
    const t = testApp(database, {}, { clock, throttle: LIMITS });
    for (let i = 0; i < 10; i++) await tokenRequest(t, wrongSecret(), grant, ATTACKER);
    const refused = await tokenRequest(t, client, grant, ATTACKER);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toEqual({
      error: 'rate_limited',
      error_description: 'too many failed attempts; retry in 60 s',
    });
    clock.advance(59);
    expect((await tokenRequest(t, client, grant, ATTACKER)).headers.get('retry-after')).toBe('1');
    clock.advance(1);
    expect((await tokenRequest(t, client, grant, ATTACKER)).status).toBe(200);
  });

  it("twenty parallel refreshes with one token (1 wins, 19 invalid_grant) do not block the client's next grant", async () => {
    const t = testApp(database, {}, { clock: new TestClock(), throttle: LIMITS });
    for (let round = 0; round < 2; round++) {
      const { refresh_token } = await (await tokenRequest(t, client, grant, OWNER)).json();
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          tokenRequest(t, client, { grant_type: 'refresh_token', refresh_token }, OWNER),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 400)).toHaveLength(19);
      expect((await tokenRequest(t, client, grant, OWNER)).status).toBe(200);
    }
  });

  it('a burst of 100 concurrent failures from one fresh address is mostly refused: at most the address limit is checked', async () => {
    const t = testApp(database, {}, { clock: new TestClock(), throttle: LIMITS });
    const statementsBefore = database.db.statementCount;
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        tokenRequest(t, { client_id: `guess-${i}`, client_secret: 'x' }, grant, ATTACKER),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMITS.addressLimit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100 - LIMITS.addressLimit);
    // Refused attempts never reach the database (Prisma may batch the lookups of the checked ones).
    expect(database.db.statementCount - statementsBefore).toBeGreaterThan(0);
    expect(database.db.statementCount - statementsBefore).toBeLessThanOrEqual(LIMITS.addressLimit);
    expect((await tokenRequest(t, client, grant, OWNER)).status).toBe(200);
  });

  it('an address spraying client ids is refused for every client, including correct credentials, until the window passes', async () => {
    const clock = new TestClock();
    const t = testApp(database, {}, { clock, throttle: LIMITS });
    for (let i = 0; i < LIMITS.addressLimit; i++) {
      expect((await tokenRequest(t, { client_id: `guess-${i}`, client_secret: 'x' }, grant, ATTACKER)).status).toBe(
        401,
      );
    }
    expect((await tokenRequest(t, client, grant, ATTACKER)).status).toBe(429);
    expect((await tokenRequest(t, client, grant, OWNER)).status).toBe(200);
    clock.advance(60);
    expect((await tokenRequest(t, client, grant, ATTACKER)).status).toBe(200);
  });

  it('invalid_grant after a successful client authentication never counts as a failure', async () => {
    const t = testApp(database, {}, { clock: new TestClock(), throttle: LIMITS });
    for (let i = 0; i < 40; i++) {
      const res = await tokenRequest(
        t,
        client,
        { grant_type: 'refresh_token', refresh_token: `mdr_unknown${i}` },
        OWNER,
      );
      expect(res.status).toBe(400);
    }
    expect((await tokenRequest(t, client, grant, OWNER)).status).toBe(200);
  });

  it('behind TRUST_PROXY reverse proxies, the address is the X-Forwarded-For entry the proxy saw, not what the client wrote', async () => {
    const t = testApp(database, { trustProxy: 1 }, { clock: new TestClock(), throttle: LIMITS });
    const via = (forwardedFor: string) => ({ 'X-Forwarded-For': forwardedFor });
    const send = (c: Client, forwardedFor: string) =>
      postForm(
        t,
        '/oauth/token.php',
        { ...grant, client_id: c.client_id, client_secret: c.client_secret },
        via(forwardedFor),
        '10.0.0.1',
      );
    for (let i = 0; i < 10; i++) expect((await send(wrongSecret(), ATTACKER)).status).toBe(401);
    // The attacker cannot escape by prepending an address of its choice...
    expect((await send(client, `${OWNER}, ${ATTACKER}`)).status).toBe(429);
    // ...and the owner behind the same proxy is unaffected.
    expect((await send(client, OWNER)).status).toBe(200);
  });
});

describe('FailureThrottle', () => {
  it('slows a (address, client) down after slowAfter failures, one step per failure, capped at a second', () => {
    const throttle = new FailureThrottle(new TestClock(), {
      ...DEFAULT_THROTTLE,
      slowAfter: 2,
      clientLimit: 20,
      delayStepMs: 200,
    });
    const delays = [];
    for (let i = 0; i < 9; i++) {
      const admission = throttle.begin('a', 'c');
      if (!admission.admitted) throw new Error('refused');
      delays.push(admission.delayMs);
      admission.settle('failed');
    }
    expect(delays).toEqual([0, 0, 0, 200, 400, 600, 800, 1000, 1000]);
    const other = throttle.begin('a', 'another client');
    expect(other.admitted && other.delayMs).toBe(0);
  });

  it('counts attempts in flight: past the address limit they are refused with Retry-After 1, and admitted again once settled', () => {
    const throttle = new FailureThrottle(new TestClock(), { ...DEFAULT_THROTTLE, addressLimit: 3 });
    const admitted = [throttle.begin('a', 'c'), throttle.begin('a', 'c'), throttle.begin('a', 'c')];
    expect(throttle.begin('a', 'c')).toEqual({ admitted: false, retryAfterSeconds: 1 });
    for (const a of admitted) if (a.admitted) a.settle('authenticated');
    expect(throttle.begin('a', 'c').admitted).toBe(true);
  });

  it('an abandoned attempt (the database was unavailable) frees its slot and counts as no failure', () => {
    const throttle = new FailureThrottle(new TestClock(), { ...DEFAULT_THROTTLE, addressLimit: 1 });
    const first = throttle.begin('a', 'c');
    if (first.admitted) first.settle('abandoned');
    expect(throttle.begin('a', 'c').admitted).toBe(true);
  });
});
