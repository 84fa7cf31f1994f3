/**
 * Idempotent retries (`Idempotency-Key` on POST): one write per client and key, the first answer
 * replayed with `Idempotent-Replayed: true`, 422 for the key reused on another request, 409 while
 * the first still runs; kept in the database, so also across a restart of the server process.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../src/auth/clients.ts';
import { createDatabase } from '../src/db/client.ts';
import { IDEMPOTENCY_TTL_MS, LEASE_MS, purgeIdempotencyKeys } from '../src/http/idempotency.ts';
import { Writer } from '../src/data/writes.ts';
import { emptyDatabase, migratedDatabase, providers } from './support/databases.ts';
import { basic, getTokens, TestClock } from './support/oauth.ts';
import { startService } from './support/process.ts';
import { expectShapeB, expectStatus, restSuite, type RestResponse } from './rest/support.ts';
import { Sql } from '../src/db/sql.ts';
import type { WriteTx } from '../src/db/transactions.ts';

const unitBody = (reference: string) => ({ data: { type: 'units', attributes: { reference } } });

describe.each(providers)('Idempotency-Key on %s', (provider) => {
  const api = restSuite(provider);
  let key = 0;
  const newKey = () => `retry-${provider}-${++key}-${Date.now()}`;
  const withKey = (k: string) => ({ headers: { 'Idempotency-Key': k } });
  const units = () => api.count('units');

  const expectReplay = (first: RestResponse, again: RestResponse) => {
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
  };

  it('an ADD retried with the same key creates one resource and answers the same twice', async () => {
    const before = await units();
    const k = newKey();
    const body = unitBody(api.unique('crate'));
    const first = await api.post('/units', body, withKey(k));
    expectStatus(first, 201);
    const again = await api.post('/units', body, withKey(k));
    expectReplay(first, again);
    expect(await units()).toBe(before + 1);
  });

  it('two sent at once: one runs, the other gets 409 idempotency_key_in_use or the replay; one resource', async () => {
    const before = await units();
    const k = newKey();
    const body = unitBody(api.unique('crate'));
    const answers = await Promise.all([1, 2, 3, 4].map(() => api.post('/units', body, withKey(k))));
    const created = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(created).toHaveLength(1);
    for (const other of answers.filter((a) => a !== created[0])) {
      if (other.status === 409) {
        expectShapeB(other, 409, 'idempotency_key_in_use');
        expect(other.headers.get('retry-after')).toBe('1');
      } else expectReplay(created[0]!, other);
    }
    expect(await units()).toBe(before + 1);
    expectReplay(created[0]!, await api.post('/units', body, withKey(k)));
  });

  it('the same key with another request: 422 idempotency_key_reused, nothing written', async () => {
    const k = newKey();
    expectStatus(await api.post('/units', unitBody(api.unique('crate')), withKey(k)), 201);
    const before = await units();
    const other = await api.post('/units', unitBody(api.unique('crate')), withKey(k));
    expectShapeB(other, 422, 'idempotency_key_reused');
    expect(other.body.error.message).toContain(k);
    // Another path with the same body is another request too.
    expectShapeB(
      await api.post('/brands', { data: { type: 'brands', attributes: { reference: 'x' } } }, withKey(k)),
      422,
      'idempotency_key_reused',
    );
    expect(await units()).toBe(before);
  });

  it('a refused request is kept as answered: the retry gets the same 4xx, and nothing is written', async () => {
    const k = newKey();
    const taken = (await api.get('/units/1')).body.data.attributes.reference;
    const first = await api.post('/units', unitBody(taken), withKey(k));
    expectShapeB(first, 409, 'conflict');
    expectReplay(first, await api.post('/units', unitBody(taken), withKey(k)));
  });

  it('keys belong to a client: another client with the same key runs its own request', async () => {
    const k = newKey();
    const body = unitBody(api.unique('crate'));
    expectStatus(await api.post('/units', body, withKey(k)), 201);
    const other = (await getTokens(api.env.t, await createClient(api.env.database.db.prisma, 'pim', ['read', 'write'])))
      .access_token;
    const res = await api.post('/units', unitBody(api.unique('crate')), { ...withKey(k), token: other });
    expectStatus(res, 201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('relationship and structure POSTs are idempotent too', async () => {
    const customer = await api.create('customers', {
      relationships: { commercial_resolve_responsible_users: { data: [] } },
    });
    const [user] = await api.ids('users', 1);
    const path = `/customers/${customer.id}/relationships/commercial_resolve_responsible_users`;
    const k = newKey();
    const first = await api.post(path, { data: [{ type: 'users', id: user }] }, withKey(k));
    expectStatus(first, 200);
    expectReplay(first, await api.post(path, { data: [{ type: 'users', id: user }] }, withKey(k)));
    expect((await api.get(`/customers/${customer.id}`)).body.data.meta.version).toBe(customer.meta.version + 1);

    const product = await api.create('products');
    const { data: structure } = await api.createStructure(product.id);
    const items = { data: [await api.itemObject((await api.create('products')).id)] };
    const itemsKey = newKey();
    const added = await api.post(`/product_structures/${structure.id}/items`, items, withKey(itemsKey));
    expectStatus(added, 201);
    const count = await api.count('product_structure_items', { product_structure_id: structure.id });
    expectReplay(added, await api.post(`/product_structures/${structure.id}/items`, items, withKey(itemsKey)));
    expect(await api.count('product_structure_items', { product_structure_id: structure.id })).toBe(count);
  });

  it('GraphQL mutations: replayed; a query sent with a key is simply answered again', async () => {
    const k = newKey();
    const mutation = JSON.stringify({
      query: `mutation { createBrand(input: { reference: "${api.unique('B')}" }) { id reference } }`,
    });
    const post = (body: string) =>
      api.env.t.request('/graphql', {
        method: 'POST',
        headers: { Authorization: `Bearer ${api.env.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': k },
        body,
      });
    const before = await api.count('brands');
    const first = await post(mutation);
    const firstText = await first.text();
    expect(JSON.parse(firstText).data.createBrand.id).toBeGreaterThan(0);
    const again = await post(mutation);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(await api.count('brands')).toBe(before + 1);
    const query = await post(JSON.stringify({ query: '{ brands(first: 1) { totalCount } }' }));
    expect(query.headers.get('idempotent-replayed')).toBeNull();
    expect((await query.json()).data.brands.totalCount).toBe(before + 1);
  });

  it('a malformed key is 400 naming the header; GET and PATCH ignore the header', async () => {
    const res = await api.post('/units', unitBody(api.unique('crate')), withKey('two words'));
    expectShapeB(res, 400, 'invalid_parameter');
    expect(res.body.error.message).toMatch(/Idempotency-Key/);
    expectStatus(await api.post('/units', unitBody(api.unique('crate')), withKey(`"${newKey()} quoted"`)), 201);
    expectStatus(await api.get('/units/1', withKey('anything')), 200);
  });

  it('a key whose request died: taken over after the lease if nothing was written, else reported as applied', async () => {
    const prisma = api.env.database.db.prisma;
    const client = (await prisma.oAuthToken.findFirst({ where: { kind: 'access' }, orderBy: { id: 'asc' } }))!
      .api_client_id;
    const body = unitBody(api.unique('crate'));
    const first = await api.post('/units', body, withKey(newKey()));
    const fingerprint = (await prisma.idempotencyKey.findFirst({
      where: { api_client_id: client },
      orderBy: { created_at: 'desc' },
    }))!.fingerprint;
    const old = new Date(Date.now() - LEASE_MS - 1000);
    // The same request (same fingerprint) claimed by a process that died before / after its write committed.
    const [dead, applied] = [newKey(), newKey()];
    const reference = body.data.attributes.reference;
    await prisma.unit.delete({ where: { id: first.body.data.id } });
    await prisma.idempotencyKey.create({
      data: { api_client_id: client, key: dead, fingerprint, state: 'running', created_at: old },
    });
    await prisma.idempotencyKey.create({
      data: { api_client_id: client, key: applied, fingerprint, state: 'committed', created_at: old },
    });
    const rerun = await api.post('/units', body, withKey(dead));
    expectStatus(rerun, 201);
    expect(rerun.body.data.attributes.reference).toBe(reference);
    const lost = await api.post('/units', body, withKey(applied));
    expectShapeB(lost, 409, 'idempotency_key_in_use');
    expect(lost.body.error.message).toMatch(/was applied/);
    // Within the lease, a claimed key is a request still running.
    const running = newKey();
    await prisma.idempotencyKey.create({
      data: { api_client_id: client, key: running, fingerprint, state: 'running', created_at: new Date() },
    });
    expectShapeB(await api.post('/units', body, withKey(running)), 409, 'idempotency_key_in_use');
  });

  it('keys are forgotten after 24 hours: purged, and the same key then runs a new request', async () => {
    const prisma = api.env.database.db.prisma;
    const k = newKey();
    expectStatus(await api.post('/units', unitBody(api.unique('crate')), withKey(k)), 201);
    const clock = new TestClock();
    const kept = await prisma.idempotencyKey.count();
    await prisma.idempotencyKey.updateMany({
      where: { key: k },
      data: { created_at: new Date(clock.now().getTime() - IDEMPOTENCY_TTL_MS - 1) },
    });
    expect(await purgeIdempotencyKeys(prisma, clock)).toBe(1);
    expect(await prisma.idempotencyKey.count()).toBe(kept - 1);
    const res = await api.post('/units', unitBody(api.unique('crate')), withKey(k));
    expectStatus(res, 201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe.each(providers)('Idempotency-Key across a restart of the server process on %s', (provider) => {
  it('the answer is kept in the database: a retry after a restart is replayed, not run again', {
    timeout: 120_000,
  }, async () => {
    const database = await emptyDatabase(provider);
    const env = { DATABASE_URL: database.target.url, SEED_DEMO_DATA: 'false' };
    let service = await startService(env);
    try {
      const db = await createDatabase(database.target);
      const client = await createClient(db.prisma, 'erp', ['read', 'write']);
      await db.close();
      const tokenAnswer = await fetch(`${service.baseUrl}/oauth/token.php`, {
        method: 'POST',
        headers: {
          Authorization: basic(client.client_id, client.client_secret),
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
      const send = () =>
        fetch(`${service.baseUrl}/units`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${token}`,
            'Content-Type': 'application/json',
            'Idempotency-Key': 'restart-1',
          },
          body: JSON.stringify(unitBody('crate-across-restarts')),
        });
      const first = await send();
      expect(first.status).toBe(201);
      const firstBody = await first.text();
      expect((await service.stop()).code).toBe(0);
      service = await startService(env);
      const again = await send();
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.text()).toBe(firstBody);
      const list = (await (
        await fetch(`${service.baseUrl}/units`, { headers: { Authorization: `Bearer ${token}` } })
      ).json()) as { meta: { total: number } };
      expect(list.meta.total).toBe(1);
    } finally {
      await service.stop();
      await database.drop();
    }
  });
});

describe.each(providers)('the idempotency marker and the write it marks on %s', (provider) => {
  it('commit together: a failure in the marker rolls the write back, so a retry can never find a write without its marker', async () => {
    const database = await migratedDatabase(provider);
    try {
      const failing = new Writer(database.db, { beforeCommit: async () => Promise.reject(new Error('marker failed')) });
      await expect(failing.create('units', { attributes: { reference: 'never' } })).rejects.toThrow('marker failed');
      expect(await database.db.prisma.unit.count()).toBe(0);
      let marked = 0;
      const marking = new Writer(database.db, {
        beforeCommit: async (tx: WriteTx) => {
          // Inside the write's transaction: it sees the row the write made.
          const [row] = await tx.query<{ n: unknown }>(
            new Sql(tx.provider).text('SELECT COUNT(*) AS "n" FROM "units"'),
          );
          marked = Number(row!.n);
        },
      });
      await marking.create('units', { attributes: { reference: 'kept' } });
      expect(marked).toBe(1);
      expect(await database.db.prisma.unit.count()).toBe(1);
    } finally {
      await database.cleanup();
    }
  });
});
