/** Roles for tests: a role file applied as `npm run roles -- apply` does, and a client with a role and its token. */
import { createClient } from '../../src/auth/clients.ts';
import type { Database } from '../../src/db/client.ts';
import { applyRoles } from '../../src/permissions/store.ts';
import type { TestApp } from './app.ts';
import { getTokens } from './oauth.ts';

/** The two examples of docs/guides/connecting-a-system-with-a-role.md: a web shop that reads sales products, a supplier-quality tool that edits suppliers. */
export const EXAMPLE_ROLES = {
  web_shop: {
    products: {
      read: {
        fields: ['reference', 'name', 'gtin', 'consumer_price', 'unit', 'brand', 'product_group'],
        where: { is_sales: { equals: true }, is_active: { equals: true } },
      },
    },
    units: { read: {} },
    brands: { read: {} },
    product_groups: { read: { fields: ['description', 'type'] } },
  },
  supplier_quality: {
    suppliers: { read: {}, update: { fields: ['is_active', 'emergency_number', 'emergency_contact', 'types'] } },
    supplier_types: { read: {}, create: {}, update: {} },
  },
} as const;

/** Replaces every role but admin with `roles` (by name), as `npm run roles -- apply` does. */
export function applyTestRoles(db: Database, roles: Record<string, unknown>) {
  return applyRoles(db.prisma, db.provider, { roles }, 'test@tests');
}

/** A new client with `role` and `scopes`, and an access token of it from `t`'s token endpoint. */
export async function tokenWithRole(t: TestApp, db: Database, role: string, scopes = ['read', 'write']) {
  const client = await createClient(db.prisma, `${role}-${Math.random().toString(36).slice(2, 8)}`, scopes, role);
  const { access_token } = await getTokens(t, client, scopes.join(' '));
  return access_token;
}
