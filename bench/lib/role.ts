/**
 * The restricted role the `graphql+role` and `rest+role` targets run under: every type with a
 * field list and a row filter, as a consuming system's role would have, chosen so that the answers
 * stay those of `admin` (the field list names every field, the filter holds for every row: every
 * row has a version of 1 or more) and are checked against the peer's like any target's. What is
 * measured is what enforcing a role costs: the filter in every statement, the field checks, the
 * role's own GraphQL schema and caches.
 */
import { resources } from '../../src/resources/registry.ts';

export const BENCH_ROLE = 'bench_restricted';

export function benchRoleFile() {
  const types = Object.fromEntries(
    resources.map((r) => {
      const fields = [...Object.keys(r.attributes), ...Object.keys(r.relationships)];
      const read = { fields, where: { version: { gte: 1 } } };
      // W5 updates a product's consumer price and English name.
      const update = r.type === 'products' ? { update: { fields: ['consumer_price', 'name'] } } : {};
      return [r.type, { read, ...update }];
    }),
  );
  return { roles: { [BENCH_ROLE]: types } };
}
