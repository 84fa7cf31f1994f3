/**
 * What a REST read costs in SQL statements: set by the type and the includes, never by the
 * number of resources on the page (the REST issue's statement-count criterion).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { bearer } from '../support/oauth.ts';

describe.each(providers)('REST statement counts on %s', (provider) => {
  let env: GraphQLTestEnv;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    await env.t.request('/units', bearer(env.token)); // the token is validated once, then trusted from memory
  });
  afterAll(async () => env?.database.cleanup());

  /**
   * The statements a read sends: the fewest over three tries. The token is trusted from memory
   * for a few seconds only (half a second on PostgreSQL while the revocation channel is not heard
   * yet), so on a busy machine a try may also re-check it: one statement more, never fewer.
   */
  const cost = async (path: string) => {
    let fewest: { statements: number; body: Record<string, any> } | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = env.database.db.statementCount;
      const res = await env.t.request(path, bearer(env.token));
      expect(res.status).toBe(200);
      const statements = env.database.db.statementCount - before;
      const body = await res.json();
      if (!fewest || statements < fewest.statements) fewest = { statements, body };
    }
    return fewest!;
  };

  it('a LIST of products with every include costs the same for per_page=5 and per_page=50', async () => {
    const include = 'include=unit,product_group,brand,production_line,preferred_supplier,product_structure';
    // Products 251-300 and 251-255: structures, units and groups on both pages.
    const small = await cost(`/products?${include}&per_page=5&page=51`);
    const large = await cost(`/products?${include}&per_page=50&page=6`);
    expect(small.body.data).toHaveLength(5);
    expect(large.body.data).toHaveLength(50);
    expect(new Set(large.body.included.map((r: { type: string }) => r.type))).toEqual(
      new Set(small.body.included.map((r: { type: string }) => r.type)),
    );
    expect(large.statements).toBe(small.statements);
    // page, count, structures; then each included type and the relationships of the included
    expect(large.statements).toBeLessThanOrEqual(16);
  });

  it('a GET and a LIST without include are one statement each: the rows, the page total and the changes cursor together', async () => {
    const get = await cost('/products/251');
    expect(get.body.meta.changes_cursor).toMatch(/^\d+$/);
    expect(get.statements).toBe(1);
    for (const perPage of [10, 25, 50]) {
      const list = await cost(`/products?per_page=${perPage}&page=2`);
      expect(list.body.data).toHaveLength(perPage);
      expect(list.body.meta.changes_cursor).toMatch(/^\d+$/);
      expect(list.statements, `per_page=${perPage}`).toBe(1);
    }
    // A page past the end has no row to carry them: the cursor is read, then the page again (so
    // that the cursor is never ahead of the rows), then the total.
    const empty = await cost('/products?per_page=50&page=100000');
    expect(empty.body.data).toEqual([]);
    expect(empty.statements).toBe(4);
  });

  it('a LIST of customers with every include costs the same for 5 and 50', async () => {
    const include =
      'include=customer_type,language,currency,account_manager,customer_service_manager,address,commercial_resolve_responsible_users,inform_on_complaint_users,inform_on_complaint_functions';
    const small = await cost(`/customers?${include}&per_page=5`);
    const large = await cost(`/customers?${include}&per_page=50`);
    expect(large.statements).toBe(small.statements);
  });
});
