/**
 * What a `where` can name on each resource type, read off the resource descriptions: its
 * attributes (with the columns that store them), and every way to reach other rows (to-one
 * relationships and owner links, the inverse of a to-one, to-many relationships, reverse links).
 * Keys are the spec's names; an attribute that shares its name with a relationship (a supplier's
 * `currency`) goes by its column (`currency_text`), as it does in GraphQL.
 */
import { resourceByType, resources } from '../resources/registry.ts';
import { LOCALES, type ResourceDefinition, type ScalarType } from '../resources/types.ts';

export interface ScalarField {
  kind: 'scalar';
  column: string;
  type: ScalarType;
  nullable: boolean;
}

/** Text in the four languages, stored in `<column>_<locale>`. */
export interface LocalizedField {
  kind: 'localized';
  columns: Record<(typeof LOCALES)[number], ScalarField>;
}

/** A small fixed record (shelf_life), each field in `<column>_<field>`. */
export interface ObjectField {
  kind: 'object';
  fields: ReadonlyMap<string, ScalarField>;
}

/** How a row reaches the one row on the other side, if any. */
export type ToOneLink =
  /** This row holds the other's id in `column` (a foreign key, or the owner it belongs to). */
  | { target: string; via: 'column'; column: string; nullable: boolean }
  /** The other row holds this row's id in `targetColumn` (a product's structure). */
  | { target: string; via: 'inverse'; targetColumn: string };

/** How a row reaches many rows. */
export type ToManyLink =
  /** The other rows hold this row's id in `targetColumn` (a structure's items, a group's products). */
  | { target: string; via: 'children'; targetColumn: string }
  /** A join table pairs this row's id (`ownColumn`) with the other's (`targetColumn`). */
  | { target: string; via: 'join'; joinTable: string; ownColumn: string; targetColumn: string };

export type WhereField =
  | ScalarField
  | LocalizedField
  | ObjectField
  | { kind: 'toOne'; link: ToOneLink }
  | { kind: 'toMany'; link: ToManyLink };

/**
 * What a where field reads of a row, in the spec's terms: what a role must see for a client to
 * name it (Access.mayName, src/permissions/access.ts). `own`: the row's id and version.
 */
export type FieldMeaning = { kind: 'own' } | { kind: 'attribute' | 'relationship' | 'owner' | 'reverse'; name: string };

const byType = new Map<string, ReadonlyMap<string, WhereField>>();
const meaningsByType = new Map<string, ReadonlyMap<string, FieldMeaning>>();
const keysByColumn = new Map<string, ReadonlyMap<string, string>>();

/** The fields a `where` on `type` may name, by spec name. */
export function whereFields(type: string): ReadonlyMap<string, WhereField> {
  let fields = byType.get(type);
  if (!fields) byType.set(type, (fields = fieldsOf(resourceByType(type)!)));
  return fields;
}

/** What the where field `key` of `type` reads (see FieldMeaning); undefined for a name that is no field. */
export function meaningOf(type: string, key: string): FieldMeaning | undefined {
  if (!whereFields(type).has(key)) return undefined;
  let meanings = meaningsByType.get(type);
  if (!meanings) meaningsByType.set(type, (meanings = meaningsOf(resourceByType(type)!)));
  return meanings.get(key);
}

/**
 * The where field that reads the column `column` of `type`: an attribute's (a part of a
 * localized text or of a small record counts as the whole), or the to-one relationship whose key
 * it is. What the shorthand filters, orderings and search, which are given by column, name.
 */
export function keyOfColumn(type: string, column: string): string | undefined {
  let keys = keysByColumn.get(type);
  if (!keys) {
    const found = new Map<string, string>();
    for (const [key, field] of whereFields(type)) {
      if (field.kind === 'scalar') found.set(field.column, key);
      else if (field.kind === 'localized') for (const part of Object.values(field.columns)) found.set(part.column, key);
      else if (field.kind === 'object') for (const part of field.fields.values()) found.set(part.column, key);
      else if (field.kind === 'toOne' && field.link.via === 'column') found.set(field.link.column, key);
    }
    keysByColumn.set(type, (keys = found));
  }
  return keys.get(column);
}

function meaningsOf(resource: ResourceDefinition): Map<string, FieldMeaning> {
  const meanings = new Map<string, FieldMeaning>([
    ['id', { kind: 'own' }],
    ['version', { kind: 'own' }],
  ]);
  for (const [name, attribute] of Object.entries(resource.attributes))
    meanings.set(name in resource.relationships ? attribute.column : name, { kind: 'attribute', name });
  for (const name of Object.keys(resource.relationships)) meanings.set(name, { kind: 'relationship', name });
  for (const name of Object.keys(resource.ownerLinks ?? {})) meanings.set(name, { kind: 'owner', name });
  for (const name of Object.keys(resource.reverseLinks ?? {})) meanings.set(name, { kind: 'reverse', name });
  return meanings;
}

function fieldsOf(resource: ResourceDefinition): Map<string, WhereField> {
  const fields = new Map<string, WhereField>([
    ['id', { kind: 'scalar', column: 'id', type: 'integer', nullable: false }],
    ['version', { kind: 'scalar', column: 'version', type: 'integer', nullable: false }],
  ]);
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    const key = name in resource.relationships ? attribute.column : name;
    const part = (suffix: string, type: ScalarType): ScalarField => ({
      kind: 'scalar',
      column: `${attribute.column}_${suffix}`,
      type,
      nullable: true,
    });
    const { type } = attribute;
    if (type === 'localized')
      fields.set(key, {
        kind: 'localized',
        columns: Object.fromEntries(LOCALES.map((l) => [l, part(l, 'string')])) as LocalizedField['columns'],
      });
    else if (typeof type === 'object')
      fields.set(key, {
        kind: 'object',
        fields: new Map(Object.entries(type.object).map(([field, t]) => [field, part(field, t)])),
      });
    else fields.set(key, { kind: 'scalar', column: attribute.column, type, nullable: attribute.nullable });
  }
  for (const [name, rel] of Object.entries(resource.relationships)) {
    const { storage, target } = rel;
    if (storage.kind === 'foreignKey')
      fields.set(name, {
        kind: 'toOne',
        link: { target, via: 'column', column: storage.column, nullable: !rel.required },
      });
    else if (storage.kind === 'inverse')
      fields.set(name, { kind: 'toOne', link: { target, via: 'inverse', targetColumn: storage.targetColumn } });
    else if (storage.kind === 'children')
      fields.set(name, { kind: 'toMany', link: { target, via: 'children', targetColumn: storage.targetColumn } });
    else
      fields.set(name, {
        kind: 'toMany',
        link: {
          target,
          via: 'join',
          joinTable: storage.joinTable,
          ownColumn: storage.ownColumn,
          targetColumn: storage.targetColumn,
        },
      });
  }
  for (const [name, link] of Object.entries(resource.ownerLinks ?? {}))
    fields.set(name, {
      kind: 'toOne',
      link: { target: link.target, via: 'column', column: link.column, nullable: false },
    });
  for (const [name, link] of Object.entries(resource.reverseLinks ?? {})) {
    const storage = resourceByType(link.type)!.relationships[link.relationship]!.storage;
    if (storage.kind === 'foreignKey')
      fields.set(name, { kind: 'toMany', link: { target: link.type, via: 'children', targetColumn: storage.column } });
  }
  return fields;
}

/** Every type's fields, made up front (a registry mistake shows at start, not on a request). */
for (const resource of resources) whereFields(resource.type);
