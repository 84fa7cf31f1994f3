/**
 * The fuzzers' random roles, and the check that no answer depends on a value the role cannot see.
 *
 * A role reads some types (others not at all), some fields of each, and the rows its `where`
 * keeps (conditions on the row's own attributes and to-one relationships' ids, under AND, OR and
 * NOT). For each role, every request is sent twice: against the database as it is, and against
 * the same database after every value the role cannot see was changed: its hidden attributes,
 * every value of the rows outside its `where` and of the types it does not read, and links to
 * rows on the other side of what it sees (a visible row's link to a hidden row moved to another
 * hidden row, or emptied). The answers must be the same, byte for byte (or the same error). The
 * second sending goes to a new app over the database, so that nothing the first one kept (a
 * page's total, a document's bytes) answers for it.
 */
import fc from 'fast-check';
import type { Database } from '../../src/db/client.ts';
import { resources, resourceByType } from '../../src/resources/registry.ts';
import type { ResourceDefinition } from '../../src/resources/types.ts';
import type { TestApp } from '../support/app.ts';
import type { MigratedDatabase } from '../support/databases.ts';
import { prng, type Prng } from '../support/prng.ts';
import {
  applyTestRoles,
  combined,
  type Condition,
  type RandomRole,
  roleFile,
  tokenWithRole,
} from '../support/roles.ts';

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** The to-one relationships a row holds in a foreign key of its own. */
const foreignKeys = (resource: ResourceDefinition) =>
  Object.entries(resource.relationships).flatMap(([name, rel]) =>
    rel.storage.kind === 'foreignKey' ? [{ name, column: rel.storage.column, rel }] : [],
  );

/** Conditions a role's where may hold on one type: its own scalars and its to-one relationships' ids. */
function leaves(resource: ResourceDefinition): fc.Arbitrary<Condition>[] {
  const found: fc.Arbitrary<Condition>[] = [
    fc.integer({ min: 2, max: 4 }).map((n) => ({ where: { id: { lt: n } }, holds: (r) => r.id < n, names: [] })),
  ];
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    const { column } = attribute;
    if (attribute.type === 'boolean')
      found.push(
        fc.boolean().map((b) => ({ where: { [name]: { equals: b } }, holds: (r) => r[column] === b, names: [name] })),
      );
    else if (attribute.type === 'integer' || attribute.type === 'decimal')
      found.push(
        fc.integer({ min: 0, max: 5 }).map((n) => ({
          where: { [name]: { gt: n } },
          holds: (r) => (num(r[column]) ?? Number.NEGATIVE_INFINITY) > n,
          names: [name],
        })),
      );
    else if (attribute.type === 'string')
      found.push(
        fc.boolean().map((b) => ({
          where: { [name]: { isNull: b } },
          holds: (r) => (r[column] === null) === b,
          names: [name],
        })),
      );
  }
  for (const { name, column } of foreignKeys(resource))
    found.push(
      fc.tuple(fc.constantFrom('equals', 'lte'), fc.integer({ min: 1, max: 3 })).map(([op, n]) => ({
        where: { [name]: { id: { [op]: n } } },
        holds: (r) => r[column] !== null && (op === 'equals' ? r[column] === n : r[column] <= n),
        names: [name],
      })),
    );
  return found;
}

/** Per type: unread (one in four), or read with all fields or some, every row or those a condition keeps. */
export const randomRole: fc.Arbitrary<RandomRole> = fc
  .tuple(
    ...resources.map((resource) =>
      fc.record({
        readable: fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
        fields: fc.option(fc.subarray([...Object.keys(resource.attributes), ...Object.keys(resource.relationships)]), {
          nil: undefined,
          freq: 3,
        }),
        condition: fc.option(combined(fc.oneof(...leaves(resource))), { nil: undefined, freq: 2 }),
      }),
    ),
  )
  .map((rules) => ({
    rules: new Map(
      rules.flatMap((rule, i) =>
        rule.readable ? [[resources[i]!.type, { fields: rule.fields, condition: rule.condition }] as const] : [],
      ),
    ),
  }));

/** Every row of every type, as Prisma reads it, by type and id. */
export type Rows = Map<string, Map<number, Record<string, any>>>;

export async function readRows(db: Database, of: readonly ResourceDefinition[] = resources): Promise<Rows> {
  const rows: Rows = new Map();
  for (const resource of of) {
    const found = await (db.prisma as any)[resource.model].findMany();
    rows.set(resource.type, new Map(found.map((r: Record<string, any>) => [r.id as number, r])));
  }
  return rows;
}

/** Whether the role sees a row of `type` (a type it does not read: no row). */
export function rowVisible(role: RandomRole, type: string, row: Record<string, any> | undefined): boolean {
  const rule = role.rules.get(type);
  return !!rule && !!row && (!rule.condition || rule.condition.holds(row));
}

/** Values never seen before, so that every change shows (and unique columns stay unique). */
let made = 0;

/** Another value for one column of `type` (`scalar`), null now and then where `nullable`. */
function otherValue(scalar: string, current: unknown, nullable: boolean, rng: Prng): unknown {
  made += 1;
  if (nullable && current !== null && rng.chance(0.3)) return null;
  switch (scalar) {
    case 'boolean':
      return current === null ? rng.chance(0.5) : !current;
    case 'integer':
      return 100_000 + made;
    case 'decimal':
      return `${made}.25`;
    case 'datetime':
      return new Date(Date.UTC(2001, 0, 1) + made * 86_400_000);
    default:
      // Words a search may look for: a search over hidden text would find them on one side only.
      return `zebra ${rng.pick(['quartz', 'hidden', 'canary'])} ${made}`;
  }
}

/** The columns of one attribute, each with its scalar type. */
function columnsOf(resource: ResourceDefinition, name: string): [column: string, scalar: string][] {
  const { type, column } = resource.attributes[name]!;
  if (type === 'localized') return ['nl', 'fr', 'en', 'de'].map((l) => [`${column}_${l}`, 'string']);
  if (typeof type === 'object') return Object.entries(type.object).map(([f, t]) => [`${column}_${f}`, t]);
  return [[column, type]];
}

/**
 * The changes that only what `role` cannot see takes: by type, row id and column, the new value.
 * What the role's where reads is left as it is (a row stays on its side of the filter).
 */
export function hiddenChanges(
  role: RandomRole,
  rows: Rows,
  rng: Prng,
): Map<string, Map<number, Record<string, unknown>>> {
  const changes = new Map<string, Map<number, Record<string, unknown>>>();
  for (const resource of resources) {
    const rule = role.rules.get(resource.type);
    const kept = new Set(rule?.condition?.names ?? []);
    const byId = new Map<number, Record<string, unknown>>();
    for (const row of rows.get(resource.type)!.values()) {
      const hiddenRow = !rowVisible(role, resource.type, row);
      const shown = (field: string) => !hiddenRow && !!rule && (!rule.fields || rule.fields.includes(field));
      const data: Record<string, unknown> = {};
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        if (kept.has(name) || shown(name)) continue;
        const nullable = attribute.nullable && attribute.type !== 'localized' && typeof attribute.type !== 'object';
        for (const [column, scalar] of columnsOf(resource, name))
          data[column] = otherValue(scalar, row[column], nullable, rng);
      }
      for (const { name, column, rel } of foreignKeys(resource)) {
        if (kept.has(name)) continue;
        const targets = [...rows.get(rel.target)!.values()];
        // A hidden link goes anywhere; a shown one to a hidden row, to another hidden row or none.
        const shownLink = shown(name) && role.rules.has(rel.target);
        if (shownLink && rowVisible(role, rel.target, rows.get(rel.target)!.get(row[column]))) continue;
        const candidates: (number | null)[] = targets
          .filter((t) => !shownLink || !rowVisible(role, rel.target, t))
          .map((t) => t.id as number);
        if (!rel.required) candidates.push(null);
        const others = candidates.filter((c) => c !== row[column]);
        if (others.length > 0) data[column] = rng.pick(others);
      }
      if (Object.keys(data).length === 0) continue;
      // Prisma's @updatedAt would move a modified date the role may see.
      if (!('modified_date' in data) && 'modified_date' in row) data.modified_date = row.modified_date;
      byId.set(row.id, data);
    }
    changes.set(resource.type, byId);
  }
  return changes;
}

/** Writes the changes behind the service's back, in one transaction. */
export async function writeChanges(db: Database, changes: ReturnType<typeof hiddenChanges>): Promise<number> {
  const updates = [...changes].flatMap(([type, byId]) =>
    [...byId].map(([id, data]) => (db.prisma as any)[resourceByType(type)!.model].update({ where: { id }, data })),
  );
  await db.prisma.$transaction(updates);
  return updates.length;
}

/** One request and its answer, as the differential check compares them. */
export interface Asked {
  request: string;
  answer: string;
}

/**
 * The world of the hidden-value check: the database, the app that answers for it as it is now,
 * and the clients of earlier roles (revoked before the next role replaces theirs).
 */
export class HiddenValues {
  private app: TestApp;
  private run = 0;
  roles = 0;
  requests = 0;
  rowsChanged = 0;

  constructor(
    private readonly database: MigratedDatabase,
    /** A new app over the database (with the settings the requests need). */
    private readonly newApp: () => TestApp,
  ) {
    this.app = newApp();
  }

  /** Done with: the app lets its connections go. */
  close(): Promise<void> {
    return this.app.app.close();
  }

  /**
   * Spreads the data first: copies of the first rows of every type that stands alone (so that a
   * role's filter leaves several rows on each side, and a link to a hidden row has another hidden
   * row to move to), then every value and link changed as for a role that sees nothing.
   */
  async spread(seed: number): Promise<void> {
    const { db } = this.database;
    for (const resource of resources) {
      if (resource.ownerLinks) continue;
      const unique = Object.entries(resource.attributes).filter(([, a]) => a.unique && a.type === 'string');
      const copies = [...(await readRows(db, [resource])).get(resource.type)!.values()].slice(0, 3).map((row) => {
        const { id: _, ...copy } = row;
        for (const [, a] of unique) copy[a.column] = `copy ${++made}`;
        return copy;
      });
      try {
        await (db.prisma as any)[resource.model].createMany({ data: copies });
      } catch {
        // A key of the table the registry does not describe (a customer's product once per product).
      }
    }
    const rows = await readRows(db);
    this.rowsChanged += await writeChanges(this.database.db, hiddenChanges({ rules: new Map() }, rows, prng(seed)));
    await this.renew();
  }

  private async renew(): Promise<TestApp> {
    const old = this.app;
    this.app = this.newApp();
    await old.app.close();
    return this.app;
  }

  /**
   * Applies `role`, asks `ask` with its token before and after the role's hidden values change,
   * and answers both series (the caller compares them).
   */
  async compare(
    role: RandomRole,
    seed: number,
    ask: (t: TestApp, token: string) => Promise<Asked[]>,
  ): Promise<{ before: Asked[]; after: Asked[]; role: string; changed: number; token: string; t: TestApp }> {
    const name = `fuzz_role_${++this.run}`;
    const { db } = this.database;
    await db.prisma.apiClient.updateMany({ where: { role: { startsWith: 'fuzz_role_' } }, data: { revoked: true } });
    await applyTestRoles(db, { [name]: roleFile(role) });
    const token = await tokenWithRole(this.app, db, name, ['read', 'write']);
    const before = await ask(this.app, token);
    const changed = await writeChanges(db, hiddenChanges(role, await readRows(db), prng(seed)));
    const after = await ask(await this.renew(), token);
    this.roles += 1;
    this.requests += before.length;
    this.rowsChanged += changed;
    return { before, after, role: JSON.stringify(roleFile(role)), changed, token, t: this.app };
  }
}
