/**
 * The restricted role the `graphql+role` and `rest+role` targets run under, shaped like the
 * the web shop of docs/guides/connecting-a-system-with-a-role.md: a field list on every type, and a row filter on the types the workloads list
 * (products, customers, suppliers; lookups such as units, groups, currencies and users are read
 * whole). Chosen so that the answers stay those of `admin` (the field lists name every field; the
 * filter, on `is_active` as a web shop's would be, holds for every row of the bench's data, which
 * has no product, customer or supplier without it) and are checked against the peer's like any
 * target's. What is measured is what enforcing a role costs: the filter in the
 * statements of those types and of the relationships that lead to them, the field checks, the
 * role's own GraphQL schema and caches.
 */
import { resources } from '../../src/resources/registry.ts';

export const BENCH_ROLE = 'bench_restricted';

/** The types whose rows the role sees through a filter. */
const FILTERED = new Set(['products', 'customers', 'suppliers']);

export function benchRoleFile() {
  const types = Object.fromEntries(
    resources.map((r) => {
      const fields = [...Object.keys(r.attributes), ...Object.keys(r.relationships)];
      const read = { fields, ...(FILTERED.has(r.type) ? { where: { is_active: { isNull: false } } } : {}) };
      // W5 updates a product's consumer price and English name.
      const update = r.type === 'products' ? { update: { fields: ['consumer_price', 'name'] } } : {};
      return [r.type, { read, ...update }];
    }),
  );
  return { roles: { [BENCH_ROLE]: types } };
}
