/**
 * Change requests over GraphQL, on both databases: a role that needs approval has no mutation for
 * the write and proposes it with createChangeRequest; another client approves it with
 * approveChangeRequest (never the author); the request's preview; the change log's entries name
 * it; a role with nothing to do with requests has none of their fields.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';

const ROLES = {
  editor: { products: { read: {}, update: { fields: ['consumer_price'], approval: 'required' } } },
  quality: { products: { read: {}, update: {}, approve: {} } },
  shop: { products: { read: { fields: ['reference'] } } },
};

const FIELDS = 'id state author types operations failure changesCursor decisions { decision by comment }';

describe.each(providers)('change requests over GraphQL on %s', (provider) => {
  let env: GraphQLTestEnv;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    await applyTestRoles(env.database.db, ROLES);
    for (const role of Object.keys(ROLES)) tokens[role] = await tokenWithRole(env.t, env.database.db, role);
    return () => env.database.cleanup();
  }, 60_000);

  const as = (role: string) => ({ token: tokens[role]! });

  it('a role that needs approval proposes with createChangeRequest, and another approves it: applied, its entries naming it', async () => {
    const { id } = await env.database.db.prisma.product.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const direct = await env.gql(
      `mutation { updateProduct(id: ${id}, input: { consumerPrice: 5 }) { id } }`,
      {},
      as('editor'),
    );
    expect(direct.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const created = await env.gql(
      `mutation($input: CreateChangeRequestInput!) { createChangeRequest(input: $input) { ${FIELDS} } }`,
      {
        input: {
          comment: 'cheaper',
          operations: [
            {
              op: 'update',
              ref: { type: 'products', id: String(id) },
              data: { type: 'products', attributes: { consumer_price: 5.55 } },
            },
          ],
        },
      },
      as('editor'),
    );
    expect(created.body.errors).toBeUndefined();
    const request = created.body.data!.createChangeRequest;
    expect(request).toMatchObject({
      state: 'PENDING',
      types: ['PRODUCTS'],
      failure: null,
      changesCursor: null,
      decisions: [],
    });

    const own = await env.gql(`mutation { approveChangeRequest(id: ${request.id}) { id } }`, {}, as('quality'));
    expect(own.body.errors).toBeUndefined();
    // The author's schema has no approveChangeRequest: it may not approve anything.
    const byAuthor = await env.gql(`mutation { approveChangeRequest(id: ${request.id}) { id } }`, {}, as('editor'));
    expect(byAuthor.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');

    const read = await env.gql(`{ changeRequest(id: ${request.id}) { ${FIELDS} } }`, {}, as('quality'));
    expect(read.body.data!.changeRequest).toMatchObject({ state: 'APPLIED', decisions: [{ decision: 'approved' }] });
    const cursor = read.body.data!.changeRequest.changesCursor as string;
    const product = await env.database.db.prisma.product.findUniqueOrThrow({ where: { id } });
    expect(Number(product.consumer_price)).toBe(5.55);
    const changes = await env.gql(
      `query($after: String) { changes(after: $after, first: 10, types: [PRODUCTS, CHANGE_REQUESTS]) { nodes { cursor type id op actor changeRequestId node { __typename } } } }`,
      { after: String(Number(cursor) - 1) },
      as('editor'),
    );
    expect(changes.body.errors).toBeUndefined();
    // The product's entry names the request; then the request's own, moved to applied by quality.
    const approver = (await env.gql(`{ changeRequest(id: ${request.id}) { decisions { by } } }`, {}, as('quality')))
      .body.data!.changeRequest.decisions[0].by;
    expect(changes.body.data!.changes.nodes).toEqual([
      {
        cursor,
        type: 'PRODUCTS',
        id,
        op: 'UPDATED',
        actor: request.author,
        changeRequestId: String(request.id),
        node: { __typename: 'Product' },
      },
      {
        cursor: String(Number(cursor) + 1),
        type: 'CHANGE_REQUESTS',
        id: Number(request.id),
        op: 'UPDATED',
        actor: approver,
        changeRequestId: null,
        node: null,
      },
    ]);
  });

  it('approving twice, or as the author, is refused with a code; the preview shows what applying writes', async () => {
    const { id } = await env.database.db.prisma.product.findFirstOrThrow({ orderBy: { id: 'desc' } });
    const created = await env.gql(
      `mutation($ops: AtomicOperations!) { createChangeRequest(input: { operations: $ops }) { id } }`,
      {
        ops: [
          {
            op: 'update',
            ref: { type: 'products', id: String(id) },
            data: { type: 'products', attributes: { consumer_price: 6.66 } },
          },
        ],
      },
      // quality proposes, so that it is the author: four eyes refuses its own approval.
      as('quality'),
    );
    expect(created.body.errors).toBeUndefined();
    const requestId = created.body.data!.createChangeRequest.id;
    const preview = await env.gql(
      `{ changeRequest(id: ${requestId}) { preview { type id now after } } }`,
      {},
      as('quality'),
    );
    expect(preview.body.errors).toBeUndefined();
    const [entry] = preview.body.data!.changeRequest.preview;
    expect(entry).toMatchObject({ type: 'PRODUCTS', id });
    expect(entry.after.attributes.consumer_price).toBe(6.66);
    expect(entry.now.attributes.consumer_price).not.toBe(6.66);
    const own = await env.gql(`mutation { approveChangeRequest(id: ${requestId}) { id } }`, {}, as('quality'));
    expect(own.body.errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(own.body.errors?.[0]?.message).toMatch(/another must approve it/);
    const admin = await env.gql(`mutation { approveChangeRequest(id: ${requestId}) { state } }`);
    expect(admin.body.data!.approveChangeRequest).toEqual({ state: 'APPLIED' });
    const again = await env.gql(`mutation { approveChangeRequest(id: ${requestId}) { state } }`);
    expect(again.body.errors?.[0]).toMatchObject({ extensions: { code: 'CONFLICT' } });
  });

  it('a role with nothing to write or approve has none of the change requests’ fields; another’s request is null', async () => {
    const res = await env.gql('{ changeRequests { id } }', {}, as('shop'));
    expect(res.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const mine = await env.gql('{ changeRequests { id author } }', {}, as('editor'));
    expect(mine.body.errors).toBeUndefined();
    const someone = await env.gql('{ changeRequests { id author } }');
    const others = someone.body.data!.changeRequests.filter(
      (r: any) => !mine.body.data!.changeRequests.some((m: any) => m.id === r.id),
    );
    for (const other of others) {
      const seen = await env.gql(`{ changeRequest(id: ${other.id}) { id } }`, {}, as('editor'));
      expect(seen.body.data!.changeRequest).toBeNull();
    }
  });
});
