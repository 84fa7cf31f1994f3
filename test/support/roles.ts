/**
 * Roles for tests: a role file applied as `npm run roles -- apply` does, a client with a role and
 * its token, and random roles (their rules, and what they let see).
 */
import fc from 'fast-check';
import { createClient } from '../../src/auth/clients.ts';
import type { Database } from '../../src/db/client.ts';
import { applyRoles } from '../../src/permissions/store.ts';
import { resourceByType } from '../../src/resources/registry.ts';
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

// Random roles ------------------------------------------------------------------------------------

/** A role's where in the spec's spelling, the same condition as a function of a row as Prisma reads it, and the fields it names. */
export interface Condition {
  where: Record<string, unknown>;
  holds(row: Record<string, any>): boolean;
  /** The attributes and relationships the condition reads (a hidden-value check leaves them as they are). */
  names?: readonly string[];
}

/** Conditions made of `leaf` and AND, OR and NOT around them, two levels deep. */
export function combined(leaf: fc.Arbitrary<Condition>, depth = 0): fc.Arbitrary<Condition> {
  if (depth >= 2) return leaf;
  const inner = combined(leaf, depth + 1);
  const names = (items: Condition[]) => items.flatMap((c) => c.names ?? []);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    fc.array(inner, { minLength: 1, maxLength: 3 }).map((items) => ({
      where: { AND: items.map((c) => c.where) },
      holds: (r: Record<string, any>) => items.every((c) => c.holds(r)),
      names: names(items),
    })),
    fc.array(inner, { minLength: 1, maxLength: 3 }).map((items) => ({
      where: { OR: items.map((c) => c.where) },
      holds: (r: Record<string, any>) => items.some((c) => c.holds(r)),
      names: names(items),
    })),
    inner.map((c) => ({ where: { NOT: c.where }, holds: (r: Record<string, any>) => !c.holds(r), names: c.names })),
  );
}

/** A random role: by type it reads, its fields (undefined: all) and its row filter (undefined: every row). */
export interface RandomRole {
  rules: Map<string, { fields?: string[]; condition?: Condition }>;
}

/** The role as a role file's rules. */
export function roleFile(role: RandomRole) {
  return Object.fromEntries(
    [...role.rules].map(([type, rule]) => [
      type,
      {
        read: {
          ...(rule.fields ? { fields: rule.fields } : {}),
          ...(rule.condition ? { where: rule.condition.where } : {}),
        },
      },
    ]),
  );
}

/** Whether the role sees the attribute `field` of `type` (a name may be an attribute and a relationship: a supplier's currency). */
export function seesAttribute(role: RandomRole, type: string, field: string): boolean {
  const rule = role.rules.get(type);
  return !!rule && (!rule.fields || rule.fields.includes(field));
}

/** Whether the role sees the relationship (or else attribute) `field` of `type`: named, and to a type it reads. */
export function sees(role: RandomRole, type: string, field: string): boolean {
  const rel = resourceByType(type)!.relationships[field];
  if (!rel) return seesAttribute(role, type, field);
  return seesAttribute(role, type, field) && role.rules.has(rel.target);
}
