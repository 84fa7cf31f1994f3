/**
 * How rows were at entries of the change log, for the role's view of the log (./role-changes.ts):
 * whether a row met the role's row filter before an entry and after it, and every field it had
 * when it entered the filter. An `updated` entry holds only what changed; the rest comes from the
 * row as it is now, with the later entries of the same resource undone, newest first (their
 * `before` values). A `deleted` entry holds the whole row it removed (structure items), so a row
 * that is gone is known again from its tombstone.
 *
 * States are keyed by column, as the data layer reads rows (RequestLoaders.columns: every column
 * and the ids of every relationship), so that the role's filter is evaluated on what its SQL reads
 * (../permissions/matches.ts) and the log's forms are made back with ./forms.ts.
 *
 * Statements: per page of entries, one per type with a row filter (its rows now, read whole and
 * for no role) and one for the later entries of all those resources. The rows are read first:
 * a write that commits in between is then among the later entries, and undoing it sets what the
 * row still held (entries of a write are committed with it, numbered or not yet: both are read).
 */
import type { DataSource as Reads } from '../db/reads.ts';
import { Sql } from '../db/sql.ts';
import type { Attribute, ResourceDefinition } from '../resources/types.ts';
import type { ChangeEntry } from './changes.ts';
import { attributeParts, definition, idsKey } from './columns.ts';
import { attributesOf, type Identifier, relationshipsOf } from './forms.ts';
import { type Row, rowsByIds } from './load.ts';
import { RequestLoaders } from './request.ts';

/** A row keyed by column; null: the row did not exist. */
export type State = Row | null;

/** A row as it was just before an entry and just after it. */
export interface Around {
  before: State;
  after: State;
}

type Fields = Record<string, unknown>;

/** The attribute a log field names: its own name, or its column where a relationship has the name. */
function attributeOf(resource: ResourceDefinition, name: string): Attribute | undefined {
  const attribute = resource.attributes[name];
  if (attribute && !(name in resource.relationships)) return attribute;
  return Object.entries(resource.attributes).find(([n, a]) => a.column === name && n in resource.relationships)?.[1];
}

/** Sets on `row` the columns of fields in the log's forms. */
export function applyFields(resource: ResourceDefinition, row: Record<string, unknown>, fields: Fields): void {
  for (const [name, value] of Object.entries(fields)) {
    const relationship = resource.relationships[name];
    if (relationship) {
      const storage = relationship.storage;
      if (storage.kind === 'foreignKey') row[storage.column] = (value as Identifier | null)?.id ?? null;
      else
        row[idsKey(name)] = Array.isArray(value)
          ? (value as Identifier[]).map((v) => v.id)
          : ((value as Identifier | null)?.id ?? null);
      continue;
    }
    const attribute = attributeOf(resource, name);
    if (!attribute) continue;
    if (attribute.type === 'localized' || typeof attribute.type === 'object') {
      const parts = (value ?? {}) as Fields;
      for (const [key, column] of attributeParts(attribute)) row[column] = parts[key] ?? null;
    } else row[attribute.column] = value ?? null;
  }
}

/**
 * Every field of a row in the log's forms (what a `created` entry holds): where an attribute and
 * a relationship share a name, the attribute goes by its column (./change-log.ts).
 */
export function fieldsOf(resource: ResourceDefinition, row: Row): Fields {
  const fields: Fields = {};
  for (const [name, value] of Object.entries(attributesOf(resource, row)))
    fields[name in resource.relationships ? resource.attributes[name]!.column : name] = value;
  return { ...fields, ...relationshipsOf(resource, row) };
}

/** The columns that never change (owner links: a structure's product, an item's structure), as the row has them. */
function fixedColumns(resource: ResourceDefinition, row: State): Fields {
  const fixed: Fields = {};
  if (row) for (const link of Object.values(resource.ownerLinks ?? {})) fixed[link.column] = row[link.column];
  return fixed;
}

/** A later entry, as much of it as undoing it needs. */
interface Later {
  seq: number | null;
  type: string;
  id: number;
  op: ChangeEntry['op'];
  version: number;
  before: Fields | null;
}

/**
 * Every entry of these resources from `from` on (and those still unnumbered: the newest),
 * newest first. One statement.
 */
async function laterEntries(source: Reads, ids: Map<string, number[]>, from: number): Promise<Later[]> {
  const sql = new Sql(source.provider).text(
    'SELECT "seq", "resource_type", "resource_id", "op", "version", "before" FROM "changes" WHERE ("seq" >= ',
  );
  sql.value(from).text(' OR "seq" IS NULL) AND (');
  [...ids].forEach(([type, list], i) => {
    if (i > 0) sql.text(' OR ');
    sql.text('("resource_type" = ').value(type).text(' AND "resource_id"').in(list).text(')');
  });
  sql.text(') ORDER BY CASE WHEN "seq" IS NULL THEN 1 ELSE 0 END DESC, "seq" DESC, "id" DESC');
  const rows = await source.query<{
    seq: unknown;
    resource_type: string;
    resource_id: number;
    op: ChangeEntry['op'];
    version: number;
    before: string | null;
  }>(sql);
  return rows.map((r) => ({
    seq: r.seq === null ? null : Number(r.seq),
    type: r.resource_type,
    id: Number(r.resource_id),
    op: r.op,
    version: Number(r.version),
    before: r.before === null ? null : (JSON.parse(r.before) as Fields),
  }));
}

/** The row as it was before `entry`, from the row as it was after it. */
function undo(resource: ResourceDefinition, after: State, entry: Later, fixed: Fields): State {
  if (entry.op === 'created') return null;
  if (entry.op === 'deleted') {
    const row: Row = { id: entry.id, version: entry.version, ...fixed };
    applyFields(resource, row, entry.before ?? {});
    return row;
  }
  if (!after) return null;
  const row: Row = { ...after, version: entry.version - 1 };
  applyFields(resource, row, entry.before ?? {});
  return row;
}

/**
 * How the resources of `entries` were around each of those entries, by seq. Only for the types
 * `wanted` says (those the role filters rows of): for the others nothing is read.
 */
export async function statesAround(
  source: Reads,
  entries: readonly ChangeEntry[],
  wanted: (type: string) => boolean,
): Promise<Map<number, Around>> {
  const states = new Map<number, Around>();
  const chosen = entries.filter((e) => wanted(e.type));
  if (chosen.length === 0) return states;
  const byType = new Map<string, Set<number>>();
  for (const e of chosen) {
    let set = byType.get(e.type);
    if (!set) byType.set(e.type, (set = new Set()));
    set.add(e.id);
  }
  const ids = new Map([...byType].map(([type, set]) => [type, [...set]]));
  // For no role: the rows as stored, whatever the role sees of them.
  const reads: Reads = { provider: source.provider, query: (statement) => source.query(statement) };
  const now = new Map<string, State>();
  for (const [type, list] of ids) {
    const rows = await rowsByIds(reads, type, list, RequestLoaders.columns(type));
    for (const [i, rowId] of list.entries()) now.set(`${type}/${rowId}`, rows[i] ?? null);
  }
  const wantedSeqs = new Set(chosen.map((e) => e.seq));
  const from = Math.min(...chosen.map((e) => e.seq));
  const current = new Map(now);
  const fixed = new Map([...now].map(([key, row]) => [key, fixedColumns(definition(key.split('/')[0]!), row)]));
  for (const entry of await laterEntries(reads, ids, from)) {
    const key = `${entry.type}/${entry.id}`;
    const resource = definition(entry.type);
    const after = current.get(key) ?? null;
    const before = undo(resource, after, entry, fixed.get(key) ?? {});
    current.set(key, before);
    if (entry.seq !== null && wantedSeqs.has(entry.seq))
      states.set(entry.seq, { before, after: after && { ...after, version: entry.version } });
  }
  return states;
}
