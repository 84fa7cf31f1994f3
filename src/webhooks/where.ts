/**
 * An endpoint's `where`, as its owner's role sees the rows: it names only fields the role may
 * name (Access.mayName, the same place every surface asks), and a to-one relationship to a row
 * the role cannot see reads as empty, as it does in the role's reads and change log. So which
 * entries an endpoint is sent can never tell a value the role may not see.
 */
import { rowsFor } from '../data/authorize.ts';
import type { ChangeEntry } from '../data/changes.ts';
import { statesAround } from '../data/role-state.ts';
import type { DataSource } from '../db/reads.ts';
import type { Access } from '../permissions/access.ts';
import { matches } from '../permissions/matches.ts';
import { parseWhere, type WhereNode, WhereInputError } from '../query/where.ts';

type Row = Readonly<Record<string, unknown>>;

/** An endpoint's filters, per type; null for a type whose filter names what the role no longer sees (the endpoint is then disabled). */
type EndpointWhere = ReadonlyMap<string, WhereNode | null>;

/**
 * The filters of an endpoint's `where`, per type, read as the role `access` may write them
 * (admin: undefined). A filter that names a field the role cannot see (its role changed since it
 * was written) is null.
 */
function endpointWhere(where: Record<string, unknown> | null, access: Access | undefined): EndpointWhere {
  return new Map(
    Object.entries(where ?? {}).map(([type, input]) => {
      try {
        return [type, typeWhere(type, input, access)];
      } catch (error) {
        if (error instanceof WhereInputError) return [type, null];
        throw error;
      }
    }),
  );
}

/** The filter on `type` of an endpoint's where, as the role `access` may write it, or WhereInputError. */
export function typeWhere(type: string, input: unknown, access: Access | undefined): WhereNode {
  const mayName = access && ((t: string, key: string) => access.mayName(t, key));
  return parseWhere(type, input, `where.${type}`, 'spec', mayName);
}

/** The foreign keys a filter reads through a to-one relationship, with the type each points at. */
function linksOf(node: WhereNode, found = new Map<string, string>()): Map<string, string> {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const item of node.items) linksOf(item, found);
      break;
    case 'not':
      linksOf(node.item, found);
      break;
    case 'empty':
    case 'toOne':
      if (node.link.via === 'column') found.set(node.link.column, node.link.target);
      break;
    default:
      break;
  }
  return found;
}

/**
 * Which of `rows` (keyed by column, as the change log's states are) meet `where` as the role sees
 * them: a foreign key to a row it cannot see counts as empty. One statement per related type the
 * role sees only some rows of.
 */
async function meetingAsSeen(
  source: DataSource,
  access: Access | undefined,
  where: WhereNode,
  rows: readonly (Row | null | undefined)[],
): Promise<boolean[]> {
  const hidden = new Map<string, Set<number>>();
  if (access) {
    for (const [column, target] of linksOf(where)) {
      if (!access.rowFilter(target)) continue;
      const ids = [...new Set(rows.map((row) => row?.[column]).filter((id): id is number => typeof id === 'number'))];
      const seen = new Set(await rowsFor(source, access, target, ids, 'read'));
      hidden.set(column, new Set(ids.filter((id) => !seen.has(id))));
    }
  }
  return rows.map((row) => {
    if (!row) return false;
    let seen = row;
    for (const [column, ids] of hidden) if (ids.has(row[column] as number)) seen = { ...seen, [column]: null };
    return matches(where, seen);
  });
}

/** An endpoint's where names what its owner's role no longer sees: it cannot tell which entries to send. */
export class UnseenWhere extends Error {}

/** An endpoint's where, read for its owner's role and read again when the role is. */
export class EndpointFilter {
  private read: { access: Access | undefined; where: ReadonlyMap<string, WhereNode> } | undefined;

  constructor(private readonly input: Record<string, unknown> | null) {}

  /**
   * The entries of `shown` (as the role sees them) whose rows meet the where, on the rows as the
   * role sees them; UnseenWhere when it names a field the role no longer sees.
   */
  async select(source: DataSource, access: Access | undefined, shown: ChangeEntry[]): Promise<ChangeEntry[]> {
    if (!this.input) return shown;
    const wheres = this.whereFor(access);
    const states = await statesAround(source, shown, (type) => wheres.has(type));
    const kept = new Set<ChangeEntry>();
    for (const [type, where] of wheres) {
      const entries = shown.filter((entry) => entry.type === type);
      const rows = entries.map((entry) => {
        const around = states.get(entry.seq);
        return entry.op === 'deleted' ? around?.before : around?.after;
      });
      const meets = await meetingAsSeen(source, access, where, rows);
      for (const [i, entry] of entries.entries()) if (meets[i]) kept.add(entry);
    }
    return shown.filter((entry) => !wheres.has(entry.type) || kept.has(entry));
  }

  private whereFor(access: Access | undefined): ReadonlyMap<string, WhereNode> {
    if (!this.read || this.read.access !== access) {
      const where = new Map<string, WhereNode>();
      const lost: string[] = [];
      for (const [type, node] of endpointWhere(this.input, access))
        if (node) where.set(type, node);
        else lost.push(type);
      if (lost.length > 0)
        throw new UnseenWhere(`its where on ${lost.join(', ')} names a field its owner's role no longer sees`);
      this.read = { access, where };
    }
    return this.read.where;
  }
}
