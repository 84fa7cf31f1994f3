/**
 * Which columns hold which registry field, and the select lists that read only the fields a
 * request needs. Rows come back keyed by column name (`name_en`, `unit_id`, `shelf_life_value`).
 */
import { resourceByType } from '../resources/registry.ts';
import { LOCALES, type Attribute, type ResourceDefinition, type ScalarType } from '../resources/types.ts';
import type { Provider } from '../db/url.ts';
import { decimalAsNumber, id, Sql } from '../db/sql.ts';
import { appendWhere } from '../query/compile.ts';
import type { WhereNode } from '../query/where.ts';

export interface Column {
  name: string;
  type: ScalarType;
  /** The key the row gets instead of `name` (GraphQL reads plain attributes under its field names). */
  alias?: string;
  /** A computed column: its SQL expression over the row's table alias (a relationship's ids). */
  expression?: (provider: Provider, alias: string) => string;
}

/** The columns one attribute is stored in. */
export function attributeColumns(attribute: Attribute): Column[] {
  const { type, column } = attribute;
  if (type === 'localized') return LOCALES.map((locale) => ({ name: `${column}_${locale}`, type: 'string' }));
  if (typeof type === 'object')
    return Object.entries(type.object).map(([field, t]) => ({ name: `${column}_${field}`, type: t }));
  return [{ name: column, type }];
}

/**
 * The columns of localized text or a small object, each with its key in the value they make
 * together (`nl` for `name_nl`); in the order of attributeColumns, so always nl, fr, en, de.
 */
export function attributeParts(attribute: Attribute): [key: string, column: string][] {
  const prefix = `${attribute.column}_`;
  return attributeColumns(attribute).map((c) => [c.name.slice(prefix.length), c.name]);
}

/** Reads localized text or a small object off a row: every key, null where unset. Make once per attribute. */
export function partsReader(attribute: Attribute): (row: Record<string, unknown>) => Record<string, unknown> {
  const parts = attributeParts(attribute);
  return (row) => {
    const value: Record<string, unknown> = {};
    for (const [key, column] of parts) value[key] = row[column] ?? null;
    return value;
  };
}

export function definition(type: string): ResourceDefinition {
  const found = resourceByType(type);
  if (!found) throw new Error(`no resource type ${type}`);
  return found;
}

/** Registry fields of one type to read: attributes, and relationships (a name may be both, as a supplier's currency). */
export interface Fields {
  attributes: Iterable<string>;
  relationships: Iterable<string>;
  /** Owner links (the registry's `ownerLinks`): their foreign key columns. */
  ownerLinks?: Iterable<string>;
}

/**
 * The columns every read of a resource takes whatever was asked: its id, and its version, which
 * REST shows as `meta.version` and checks conditional writes against, and GraphQL exposes as a field.
 */
const ALWAYS_READ: readonly Column[] = [
  { name: 'id', type: 'integer' },
  { name: 'version', type: 'integer' },
];

/**
 * The columns of the given fields (to-one relationships read their foreign key on this table);
 * `id` and `version` always. Unknown names are a programming error.
 */
export function columnsOf(
  type: string,
  { attributes, relationships, ownerLinks = [] }: Fields,
  /** A key for a plain attribute's column (one column, not localized nor an object). */
  aliasOf?: (attribute: string, column: string) => string,
): Column[] {
  const def = definition(type);
  const columns = new Map<string, Column>(ALWAYS_READ.map((c) => [c.name, c]));
  for (const name of attributes) {
    const attribute = def.attributes[name];
    if (!attribute) throw new Error(`${type} has no attribute ${name}`);
    const plain = typeof attribute.type === 'string' && attribute.type !== 'localized';
    for (const column of attributeColumns(attribute)) {
      columns.set(column.name, plain && aliasOf ? { ...column, alias: aliasOf(name, column.name) } : column);
    }
  }
  for (const name of relationships) {
    const relationship = def.relationships[name];
    if (!relationship) throw new Error(`${type} has no relationship ${name}`);
    if (relationship.storage.kind === 'foreignKey')
      columns.set(relationship.storage.column, { name: relationship.storage.column, type: 'integer' });
  }
  for (const name of ownerLinks) {
    const link = def.ownerLinks?.[name];
    if (!link) throw new Error(`${type} has no owner link ${name}`);
    columns.set(link.column, { name: link.column, type: 'integer' });
  }
  return [...columns.values()];
}

/** Every attribute and relationship of a type: what a REST document shows. */
export function allFields(type: string): Fields {
  const def = definition(type);
  return { attributes: Object.keys(def.attributes), relationships: Object.keys(def.relationships) };
}

/**
 * By columns array (made once per type, or per operation's plan): its select lists, by provider
 * and alias. An array made per call (a key column added to a plan's) gets an entry that goes
 * with it.
 */
const selectLists = new WeakMap<readonly Column[], Map<string, string>>();

/** `t."a", CAST(t."b" AS REAL) AS "b", ...` for a select list (made once per columns array, provider and alias). */
export function selectList(provider: Provider, columns: readonly Column[], alias: string): string {
  let byKey = selectLists.get(columns);
  if (!byKey) selectLists.set(columns, (byKey = new Map()));
  const key = `${provider} ${alias}`;
  let list = byKey.get(key);
  if (list === undefined) {
    list = columns
      .map((c) => {
        const name = c.alias ?? c.name;
        if (c.expression) return `${c.expression(provider, alias)} AS ${id(name)}`;
        if (c.type === 'decimal') return decimalAsNumber(provider, `${alias}.${id(c.name)}`, name);
        return c.alias ? `${alias}.${id(c.name)} AS ${id(name)}` : `${alias}.${id(c.name)}`;
      })
      .join(', ');
    byKey.set(key, list);
  }
  return list;
}

/** The row key holding a relationship's ids (see relationshipIdColumns). */
export function idsKey(relationship: string): string {
  return `__ids_${relationship}`;
}

/**
 * The ids `column` holds in the rows of `from` that `where` keeps, as one value: an array on
 * PostgreSQL, JSON array text on SQLite (which orders an aggregate only by chance:
 * relationshipIds() sorts).
 */
function aggregateIds(provider: Provider, column: string, from: string, where: string): string {
  return provider === 'postgresql'
    ? `ARRAY(SELECT ${column} FROM ${from} WHERE ${where} ORDER BY 1)`
    : `(SELECT json_group_array(${column}) FROM ${from} WHERE ${where})`;
}

/**
 * The rows of each related type a reader may see (its role's row filter, src/data/visible.ts),
 * undefined for all of them.
 */
export type RowsOf = (type: string) => WhereNode | undefined;

/** ` AND <the rows of type aliased alias the reader may see>`, written with literals ('' for all rows). */
function andRowsOf(provider: Provider, rowsOf: RowsOf | undefined, type: string, alias: string): string {
  const where = rowsOf?.(type);
  if (!where) return '';
  const sql = new Sql(provider, true).text(' AND ');
  appendWhere(sql, where, alias);
  return sql.toString();
}

/**
 * Computed columns with the ids of the relationships that are not a foreign key on the row (a
 * product's structure, a structure's items, links in join tables), so that one statement reads
 * a resource with all its relationship data. Read them back with relationshipIds(). With `rowsOf`
 * (a reader with a role), the ids of related rows the reader may not see are left out, and a
 * foreign key to one reads as null, in the same statement.
 */
export function relationshipIdColumns(type: string, names: readonly string[], rowsOf?: RowsOf): Column[] {
  const def = definition(type);
  return names.flatMap((name): Column[] => {
    const rel = def.relationships[name]!;
    const storage = rel.storage;
    const key = idsKey(name);
    const visible = (p: Provider, alias: string) => andRowsOf(p, rowsOf, rel.target, alias);
    switch (storage.kind) {
      case 'foreignKey': {
        if (!rowsOf?.(rel.target)) return [];
        // A correlated lookup, one index probe per row: PostgreSQL would turn an EXISTS into a
        // hash of every visible row of the other table, built by each statement.
        return [
          {
            name: storage.column,
            type: 'integer',
            expression: (p, a) =>
              `(SELECT rv."id" FROM ${id(rel.target)} rv WHERE rv."id" = ${a}.${id(storage.column)}${visible(p, 'rv')})`,
          },
        ];
      }
      case 'inverse':
        return [
          {
            name: key,
            type: 'integer',
            expression: (p, a) =>
              `(SELECT s."id" FROM ${id(rel.target)} s WHERE s.${id(storage.targetColumn)} = ${a}."id"${visible(p, 's')})`,
          },
        ];
      case 'children':
        return [
          {
            name: key,
            type: 'integer',
            expression: (p, a) =>
              aggregateIds(
                p,
                'c."id"',
                `${id(rel.target)} c`,
                `c.${id(storage.targetColumn)} = ${a}."id"${visible(p, 'c')}`,
              ),
          },
        ];
      case 'join':
        return [
          {
            name: key,
            type: 'integer',
            expression: (p, a) =>
              rowsOf?.(rel.target)
                ? aggregateIds(
                    p,
                    `j.${id(storage.targetColumn)}`,
                    `${id(storage.joinTable)} j JOIN ${id(rel.target)} rv ON rv."id" = j.${id(storage.targetColumn)}`,
                    `j.${id(storage.ownColumn)} = ${a}."id"${visible(p, 'rv')}`,
                  )
                : aggregateIds(
                    p,
                    `j.${id(storage.targetColumn)}`,
                    `${id(storage.joinTable)} j`,
                    `j.${id(storage.ownColumn)} = ${a}."id"`,
                  ),
          },
        ];
      default:
        return storage satisfies never;
    }
  });
}

/** A relationship's ids as relationshipIdColumns() read them: one id or null, or ids ascending. */
export function relationshipIds(row: Record<string, unknown>, relationship: string): number | null | number[] {
  const value = row[idsKey(relationship)];
  if (typeof value === 'string') return (JSON.parse(value) as number[]).sort((a, b) => a - b);
  return value as number | null | number[];
}
