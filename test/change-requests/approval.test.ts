/**
 * Change requests with four-eyes approval over REST, on both databases: a role whose rule asks for
 * approval writes nothing and logs nothing until another client approves; the author cannot
 * approve; an approver whose role could not make the change cannot approve it; rejected and
 * withdrawn requests write nothing; an approved one writes everything in one transaction, its
 * entries naming the author and the request; a stale version at apply time leaves it `failed`
 * with nothing written; its preview is what applying it writes; a restricted role never sees
 * another's request, nor a field it does not see inside one it may.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';
import { expectShapeB, expectStatus, restSuite } from '../rest/support.ts';

const ROLES = {
  /** Edits products' prices and names, each change waiting for approval. */
  editor: {
    products: { read: {}, update: { fields: ['name', 'consumer_price'], approval: 'required' } },
    units: { read: {} },
  },
  /** Quality: may change products itself, and approve changes to them. */
  quality: { products: { read: {}, update: {}, approve: {} }, units: { read: {} } },
  /** May approve product changes, but not make them: cannot approve any. */
  approves_only: { products: { read: {}, approve: {} } },
  /** Approves changes to products it sees, without their prices. */
  blind_quality: { products: { read: { fields: ['reference', 'name'] }, update: {}, approve: {} } },
  /** Reads products; nothing to do with change requests. */
  shop: { products: { read: { fields: ['reference', 'name'] } } },
};

describe.each(providers)('change requests over REST on %s', (provider) => {
  const api = restSuite(provider);
  const tokens: Record<string, string> = {};
  const as = (role: keyof typeof ROLES | 'author2') => ({ token: tokens[role]! });
  beforeAll(async () => {
    const { db } = api.env.database;
    await applyTestRoles(db, ROLES);
    for (const role of Object.keys(ROLES)) tokens[role] = await tokenWithRole(api.env.t, db, role);
    tokens.author2 = await tokenWithRole(api.env.t, db, 'editor');
  }, 60_000);

  /** The change log's entries of resources (those of the requests themselves are counted apart). */
  const entries = async () => api.prisma.change.count({ where: { resource_type: { not: 'change_requests' } } });
  const product = async (id: number) => api.prisma.product.findUniqueOrThrow({ where: { id } });
  const priceOf = async (id: number) => Number((await product(id)).consumer_price);

  /** A product, and the editor's change of its price, waiting: the answer to the PATCH. */
  async function proposedPrice(price: number, headers: Record<string, string> = {}) {
    const { id } = await api.create('products');
    const before = await entries();
    const res = await api.patch(
      `/products/${id}`,
      { data: { type: 'products', id: String(id), attributes: { consumer_price: price } } },
      { ...as('editor'), headers },
    );
    expectStatus(res, 202);
    expect(await entries()).toBe(before);
    return { productId: Number(id), request: res.body.data, location: res.headers.get('location') };
  }

  it('a write of a role whose rule asks for approval answers 202 with a pending request, and writes and logs nothing', async () => {
    const { productId, request, location } = await proposedPrice(12.5);
    expect(request).toMatchObject({
      type: 'change_requests',
      attributes: {
        state: 'pending',
        types: ['products'],
        operations: [
          {
            op: 'update',
            ref: { type: 'products', id: String(productId) },
            data: { attributes: { consumer_price: 12.5 } },
          },
        ],
        decisions: [],
        changes_cursor: null,
      },
    });
    expect(location).toBe(`http://localhost/change_requests/${request.id}`);
    expect(await priceOf(productId)).not.toBe(12.5);
    // The author reads it back.
    const got = await api.get(`/change_requests/${request.id}`, as('editor'));
    expectStatus(got, 200);
    expect(got.body.data.attributes.state).toBe('pending');
  });

  it('the author cannot approve its own request, nor can a role that may approve but could not make the change', async () => {
    const { productId, request } = await proposedPrice(13);
    expectShapeB(await api.post(`/change_requests/${request.id}/approve`, undefined, as('editor')), 403, 'forbidden');
    const approvesOnly = await api.post(`/change_requests/${request.id}/approve`, undefined, as('approves_only'));
    expectShapeB(approvesOnly, 403, 'forbidden');
    expect(approvesOnly.body.error.message).toMatch(/could not make this change itself/);
    // Another client of the author's role needs approval itself: it may not approve either.
    expectStatus(await api.post(`/change_requests/${request.id}/approve`, undefined, as('author2')), 404);
    expect((await api.get(`/change_requests/${request.id}`)).body.data.attributes.state).toBe('pending');
    expect(await priceOf(productId)).not.toBe(13);
  });

  it('a rejected or withdrawn request writes nothing, and cannot be approved after', async () => {
    const before = await entries();
    const rejected = await proposedPrice(14);
    const res = await api.post(
      `/change_requests/${rejected.request.id}/reject`,
      { meta: { comment: 'not this price' } },
      as('quality'),
    );
    expectStatus(res, 200);
    expect(res.body.data.attributes).toMatchObject({
      state: 'rejected',
      decisions: [{ decision: 'rejected', comment: 'not this price' }],
    });
    const withdrawn = await proposedPrice(15);
    expectShapeB(
      await api.post(`/change_requests/${withdrawn.request.id}/withdraw`, undefined, as('quality')),
      403,
      'forbidden',
    );
    expectStatus(await api.post(`/change_requests/${withdrawn.request.id}/withdraw`, undefined, as('editor')), 200);
    for (const { request } of [rejected, withdrawn])
      expectShapeB(await api.post(`/change_requests/${request.id}/approve`, undefined, as('quality')), 409, 'conflict');
    expect(await priceOf(rejected.productId)).not.toBe(14);
    expect(await priceOf(withdrawn.productId)).not.toBe(15);
    // Only the two products' creations were logged.
    expect(await entries()).toBe(before + 2);
  });

  it('an approved request is applied at once, all of it in one transaction, its entries naming the author and the request', async () => {
    const { id: a } = await api.create('products');
    const { id: b } = await api.create('products');
    const created = await api.post(
      '/change_requests',
      {
        data: {
          type: 'change_requests',
          attributes: {
            comment: 'new prices',
            operations: [
              {
                op: 'update',
                ref: { type: 'products', id: String(a) },
                data: { type: 'products', attributes: { consumer_price: 21 } },
              },
              {
                op: 'update',
                ref: { type: 'products', id: String(b) },
                data: { type: 'products', attributes: { consumer_price: 22 } },
              },
            ],
          },
        },
      },
      as('editor'),
    );
    expectStatus(created, 201);
    const id = created.body.data.id;
    const approved = await api.post(`/change_requests/${id}/approve`, { meta: { comment: 'checked' } }, as('quality'));
    expectStatus(approved, 200);
    expect(approved.body.data.attributes).toMatchObject({
      state: 'applied',
      failure: null,
      decisions: [{ decision: 'approved', comment: 'checked' }],
      changes_cursor: expect.stringMatching(/^\d+$/),
    });
    expect([await priceOf(Number(a)), await priceOf(Number(b))]).toEqual([21, 22]);
    const logged = await api.prisma.change.findMany({
      where: { change_request_id: Number(id) },
      orderBy: { seq: 'asc' },
    });
    expect(logged.map((e: any) => [e.resource_id, e.op])).toEqual([
      [Number(a), 'updated'],
      [Number(b), 'updated'],
    ]);
    const author = created.body.data.attributes.author;
    expect(logged.every((e: any) => e.actor === author)).toBe(true);
    expect(String(logged.at(-1).seq)).toBe(approved.body.data.attributes.changes_cursor);
    // The entries say so on /changes.
    const page = await api.ok('GET', `/changes?after=${logged[0].seq - 1}&type=products`);
    expect(page.data[0].relationships.change_request).toEqual({ data: { type: 'change_requests', id } });
  });

  it('a version that moved on before approval leaves the request failed, with the reason, and nothing of it written', async () => {
    const { id } = await api.create('products');
    // The If-Match of the GET's entity tag, as a client sends it.
    const etag = (await api.get(`/products/${id}`, as('editor'))).headers.get('etag')!;
    const conditional = await api.patch(
      `/products/${id}`,
      { data: { type: 'products', id: String(id), attributes: { consumer_price: 32 } } },
      { ...as('editor'), headers: { 'If-Match': etag } },
    );
    expectStatus(conditional, 202);
    expect(conditional.body.data.attributes.operations[0].meta).toEqual({
      version: (await product(Number(id))).version,
    });
    // Someone else writes the product meanwhile.
    await api.ok('PATCH', `/products/${id}`, {
      data: { type: 'products', id: String(id), attributes: { consumer_price: 33 } },
    });
    const before = await entries();
    const approved = await api.post(`/change_requests/${conditional.body.data.id}/approve`, undefined, as('quality'));
    expectStatus(approved, 200);
    expect(approved.body.data.attributes).toMatchObject({ state: 'failed', changes_cursor: null });
    expect(approved.body.data.attributes.failure).toMatch(/version/);
    expect(await priceOf(Number(id))).toBe(33);
    expect(await entries()).toBe(before);
  });

  it('the preview shows each resource as it is and as applying would leave it, and applying leaves exactly that', async () => {
    const { productId, request } = await proposedPrice(41.25);
    const preview = await api.get(`/change_requests/${request.id}/preview`, as('quality'));
    expectStatus(preview, 200);
    expect(preview.body.data).toHaveLength(1);
    const [entry] = preview.body.data;
    expect(entry.now.attributes.consumer_price).not.toBe(41.25);
    expect(entry.after.attributes.consumer_price).toBe(41.25);
    expect(await priceOf(productId)).not.toBe(41.25);
    expectStatus(await api.post(`/change_requests/${request.id}/approve`, undefined, as('quality')), 200);
    // Read as the previewer reads: the same role's view.
    const applied = (await api.get(`/products/${productId}`, as('quality'))).body;
    const { modified_date: _a, ...afterAttributes } = entry.after.attributes;
    const { modified_date: _b, ...appliedAttributes } = applied.data.attributes;
    expect(appliedAttributes).toEqual(afterAttributes);
    expect(applied.data.relationships).toEqual(entry.after.relationships);
  });

  it('a role sees only its own requests and those it may approve, and never a field it does not see inside one', async () => {
    const { request } = await proposedPrice(51);
    expectStatus(await api.get(`/change_requests/${request.id}`, as('shop')), 404);
    const shopList = await api.get('/change_requests', as('shop'));
    expectStatus(shopList, 200);
    expect(shopList.body.data).toEqual([]);
    // Another editor sees its own requests only.
    const otherList = await api.get('/change_requests', as('author2'));
    expect(otherList.body.data.map((r: any) => r.id)).not.toContain(request.id);
    // An approver that does not see prices sees the request, without the price in it.
    const blind = await api.get(`/change_requests/${request.id}`, as('blind_quality'));
    expectStatus(blind, 200);
    expect(blind.body.data.attributes.operations[0].data.attributes).toEqual({});
    const quality = await api.get(`/change_requests?state=pending`, as('quality'));
    expect(quality.body.data.map((r: any) => r.id)).toContain(request.id);
  });

  it("the change log holds each request's entries, created and on each state it moves to, for its author, its approvers and admin only, and a hidden field never", async () => {
    const { cursor } = (await api.ok('GET', '/changes?per_page=1')).meta as { cursor: string };
    const head = async () => (await api.get('/changes?type=products&per_page=500', {})).body.meta.cursor as string;
    const start = await head();
    const { productId, request } = await proposedPrice(71.5);
    expectStatus(await api.post(`/change_requests/${request.id}/approve`, undefined, as('quality')), 200);
    const id = Number(request.id);
    const logOf = async (token: Record<string, string> = {}, type = 'change_requests') => {
      const page = await api.get(`/changes?after=${start}&type=${type}&per_page=500`, token);
      expectStatus(page, 200);
      return (page.body.data as any[]).filter(
        (e) => e.attributes.resource_type !== 'change_requests' || e.attributes.resource_id === id,
      );
    };
    const summary = (log: any[]) => log.map((e) => [e.attributes.op, e.attributes.after.state ?? null]);
    // Admin, the author and an approver: created (pending), then applied.
    for (const reader of [{}, as('editor'), as('quality'), as('blind_quality')])
      expect(summary(await logOf(reader))).toEqual([
        ['created', 'pending'],
        ['updated', 'applied'],
      ]);
    const [created, applied] = await logOf(as('quality'));
    expect(created.attributes.actor).toBe(request.attributes.author);
    expect(created.attributes.after.operations[0].data.attributes).toEqual({ consumer_price: 71.5 });
    expect(created.relationships.resource.data).toEqual({ type: 'change_requests', id });
    expect(applied.attributes.before).toEqual({ state: 'pending' });
    // An approver that does not see prices: the request's entries without the price in them.
    const [blind] = await logOf(as('blind_quality'));
    expect(blind.attributes.after.operations[0].data.attributes).toEqual({});
    // Neither a role that has nothing to do with it, nor another editor (not its author).
    expect(await logOf(as('shop'))).toEqual([]);
    expect(await logOf(as('author2'))).toEqual([]);
    // Among all types, after the request's: the product's entry, naming the request.
    const all = (await logOf(as('quality'), 'products,change_requests')).map((e) => [
      e.attributes.resource_type,
      e.attributes.resource_id,
      e.attributes.op,
    ]);
    expect(all.slice(-3)).toEqual([
      ['change_requests', id, 'created'],
      ['products', productId, 'updated'],
      ['change_requests', id, 'updated'],
    ]);
    expect(cursor).toMatch(/^\d+$/);
  });

  it('POST /operations of a role that needs approval for one of them becomes one change request', async () => {
    const { id } = await api.create('products');
    const before = await entries();
    const res = await api.request('POST', '/operations', {
      ...as('editor'),
      contentType: 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
      body: {
        'atomic:operations': [
          {
            op: 'update',
            ref: { type: 'products', id: String(id) },
            data: { type: 'products', attributes: { consumer_price: 61 } },
          },
        ],
      },
    });
    expectStatus(res, 202);
    expect(res.body.data.attributes.state).toBe('pending');
    expect(await entries()).toBe(before);
  });

  it('a proposal that could never apply is refused as the write itself, and nothing is stored', async () => {
    const { id } = await api.create('products');
    const count = await api.prisma.changeRequest.count();
    const res = await api.patch(
      `/products/${id}`,
      { data: { type: 'products', id: String(id), attributes: { reference: 'not allowed' } } },
      as('editor'),
    );
    expectShapeB(res, 403, 'forbidden');
    expect(await api.prisma.changeRequest.count()).toBe(count);
    // A direct write through the data layer is refused too: GraphQL has no way around the approval.
    const graphql = await api.env.t.request('/graphql', {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens.editor}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: `mutation { updateProduct(id: ${id}, input: { consumerPrice: 1 }) { id } }` }),
    });
    const body = await graphql.json();
    // Its schema has no such mutation: the write is a change request or nothing.
    expect(body.errors?.[0]?.message).toMatch(/Cannot query field "updateProduct" on type "Mutation"/);
    expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
