/**
 * `npm run roles -- ...` and `npm run client -- set-role` as an operator runs them, on both
 * databases: a role file is checked whole (every problem named by its path, nothing applied),
 * applied in one transaction, listed and shown; a role clients still have is not removed; every
 * change is recorded with who made it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { emptyDatabase, providers, type TestDatabase } from '../support/databases.ts';
import { runScript } from '../support/process.ts';
import { EXAMPLE_ROLES } from '../support/roles.ts';

/** The two roles of docs/guides/connecting-a-system-with-a-role.md. */
const ROLES = { roles: EXAMPLE_ROLES };

const BAD = {
  roles: {
    'Web Shop': {},
    mes: {
      productz: { read: {} },
      products: {
        read: { fields: ['reference', 'nope'], where: { unit: { reference: { equals: 'kg' } } } },
        update: { check: { consumer_price: { gt: 'cheap' } } },
        destroy: {},
      },
      units: { delete: {} },
      brands: { read: { where: { modified_date: { gt: '2026-01-01T00:00:00Z' } } } },
      product_structure_items: { read: { where: { product_structure: { id: { equals: 1 } } } } },
    },
  },
};

describe.each(providers)('roles command line on %s', (provider) => {
  let database: TestDatabase;
  let db: Database;
  let dir: string;
  const env = () => ({ DATABASE_URL: database.target.url });
  const roles = (...args: string[]) => runScript('src/permissions/cli.ts', args, env());
  const client = (...args: string[]) => runScript('src/auth/cli.ts', args, env());
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  beforeAll(async () => {
    database = await emptyDatabase(provider);
    dir = mkdtempSync(join(tmpdir(), 'roles-'));
    await roles('list'); // migrates
    db = await createDatabase(database.target, { connectMs: 5000, statementMs: 5000 });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a bad file whole, naming every problem by its path in the file', async () => {
    const result = await roles('apply', file('bad.json', BAD));
    expect(result.code).toBe(2);
    for (const problem of [
      "roles.Web Shop: a role's name is lowercase letters",
      'roles.mes.productz: is not a resource type',
      'roles.mes.products.read.fields[1]: "nope" is not an attribute or relationship of products',
      "roles.mes.products.read.where: may name the row's own fields and its to-one relationships' ids only",
      'roles.mes.products.update.check.consumer_price.gt: must be a number (got "cheap")',
      'roles.mes.products.destroy: is not an operation: read, create, update, delete, approve',
      'roles.mes.units.delete: units are never deleted',
      'roles.mes.brands.read.where: may not name modified_date: the change log does not record it',
      'roles.mes.product_structure_items.read.where: may not name product_structure: the change log does not record it',
    ])
      expect(result.stderr).toContain(problem);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await db.prisma.role.count()).toBe(0);
    const notJson = await roles('apply', file('broken.json', '{"roles": '));
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/broken\.json is not JSON/);
  });

  it('applies, lists and shows roles; applying the same file again changes nothing', async () => {
    const path = file('roles.json', ROLES);
    const applied = await roles('apply', path, '--json');
    expect(applied.code).toBe(0);
    // The web shop reads product groups' type, but not product group types: said, not dropped silently.
    expect(applied.stderr).toContain(
      'roles: warning: roles.web_shop.product_groups.read.fields[1]: type leads to product_group_types, which web_shop may not read, so it is left out',
    );
    expect(applied.stderr.match(/warning/g)).toHaveLength(1);
    expect(JSON.parse(applied.stdout)).toEqual({
      created: ['web_shop', 'supplier_quality'],
      changed: [],
      removed: [],
      unchanged: [],
      warnings: [
        'roles.web_shop.product_groups.read.fields[1]: type leads to product_group_types, which web_shop may not read, so it is left out; give web_shop "product_group_types": {"read": {}} or leave type out',
      ],
    });
    expect(JSON.parse((await roles('apply', path, '--json')).stdout).unchanged).toEqual([
      'web_shop',
      'supplier_quality',
    ]);
    const list = JSON.parse((await roles('list', '--json')).stdout) as { name: string; types: object }[];
    expect(list.map((r) => r.name)).toEqual(['admin', 'supplier_quality', 'web_shop']);
    expect(list[2]!.types).toEqual({ products: ['read'], units: ['read'], brands: ['read'], product_groups: ['read'] });
    expect(JSON.parse((await roles('show', 'web_shop')).stdout)).toEqual(ROLES.roles.web_shop);
    const unknown = await roles('show', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no role "nope"; the roles are: admin, supplier_quality, web_shop');
  });

  it('gives clients a role, refuses an unknown one and the removal of a role in use, and records who changed what', async () => {
    const unknown = await client('create', '--name', 'shop', '--scopes', 'read', '--role', 'web_shopp');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no role "web_shopp"; the roles are: admin, supplier_quality, web_shop');
    const created = await client('create', '--name', 'shop', '--scopes', 'read', '--role', 'web_shop', '--json');
    expect(created.code).toBe(0);
    const { client_id } = JSON.parse(created.stdout) as { client_id: string };
    expect((await db.prisma.apiClient.findUnique({ where: { client_id } }))!.role).toBe('web_shop');

    const without = file('without-shop.json', { roles: { supplier_quality: ROLES.roles.supplier_quality } });
    const kept = await roles('apply', without);
    expect(kept.code).toBe(2);
    expect(kept.stderr).toContain('clients still have roles the file removes');
    expect(kept.stderr).toContain(`${client_id} (shop): web_shop`);
    expect(await db.prisma.role.count()).toBe(2);

    const moved = await client('set-role', client_id, 'admin');
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain(`client ${client_id}: role web_shop -> admin`);
    const applied = await roles('apply', without, '--json');
    expect(JSON.parse(applied.stdout).removed).toEqual(['web_shop']);

    const changes = await db.prisma.roleChange.findMany({ orderBy: { id: 'asc' } });
    expect(changes.map((c) => [c.role, c.change])).toEqual([
      ['web_shop', 'created'],
      ['supplier_quality', 'created'],
      ['admin', 'assigned'],
      ['web_shop', 'removed'],
    ]);
    expect(JSON.parse(changes[2]!.before!)).toEqual({ client_id, role: 'web_shop' });
    expect(JSON.parse(changes[2]!.after!)).toEqual({ client_id, role: 'admin' });
    expect(JSON.parse(changes[3]!.before!)).toEqual(ROLES.roles.web_shop);
    expect(changes.every((c) => /.+@.+/.test(c.changed_by))).toBe(true);
  });
});
