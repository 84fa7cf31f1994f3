/**
 * How a resource's values look outside the database, in the old interface's forms: every
 * attribute, localized text and small objects as objects with all their keys, date-times in
 * ATOM form, relationships as identifiers. REST documents show them so, and the change log
 * records them so (./change-log.ts).
 */
import { partsReader, relationshipIds } from './columns.ts';
import type { Row } from './load.ts';
import type { Attribute, Relationship, ResourceDefinition } from '../resources/types.ts';

/** `2026-01-31T12:00:00.000Z` (as rows carry date-times) -> ATOM `2026-01-31T12:00:00+00:00`. */
export function atom(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const iso = value instanceof Date ? value.toISOString() : String(value);
  return `${iso.slice(0, 19)}+00:00`;
}

type AttributeReader = (row: Row) => unknown;

/**
 * How each attribute of a type is read from a row, worked out once per type: a document reads
 * every attribute of every row, and doing it per row (entries, column lists) cost a tenth of a
 * REST list's CPU.
 */
const readersByType = new Map<ResourceDefinition, [string, AttributeReader][]>();

function readerOf(attribute: Attribute): AttributeReader {
  // Localized text with its four keys, in the same order on every resource; small objects whole.
  if (attribute.type === 'localized' || typeof attribute.type === 'object') return partsReader(attribute);
  const column = attribute.column;
  if (attribute.type === 'datetime') return (row) => atom(row[column]);
  return (row) => row[column] ?? null;
}

/** How each attribute of a type is read from a row (worked out once per type). */
export function attributeReaders(resource: ResourceDefinition): readonly [name: string, read: AttributeReader][] {
  let readers = readersByType.get(resource);
  if (!readers)
    readersByType.set(
      resource,
      (readers = Object.entries(resource.attributes).map(([name, a]) => [name, readerOf(a)])),
    );
  return readers;
}

/** The attributes of a row, as the document shows them: every one, localized text with its four keys. */
export function attributesOf(resource: ResourceDefinition, row: Row): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const [name, read] of attributeReaders(resource)) attributes[name] = read(row);
  return attributes;
}

export interface Identifier {
  type: string;
  id: number;
}

/** A relationship's value: an identifier or null (to-one), identifiers (to-many). */
export type RelationshipValue = Identifier | Identifier[] | null;

/** The relationships of a row read with its relationship ids (RequestLoaders.columns), as identifiers. */
export function relationshipsOf(resource: ResourceDefinition, row: Row): Record<string, RelationshipValue> {
  const values: Record<string, RelationshipValue> = {};
  for (const [name, relationship] of Object.entries(resource.relationships))
    values[name] = relationshipValue(name, relationship, row);
  return values;
}

/** One relationship of a row read with its relationship ids, as an identifier, identifiers or null. */
export function relationshipValue(name: string, relationship: Relationship, row: Row): RelationshipValue {
  const storage = relationship.storage;
  if (storage.kind === 'foreignKey') {
    const target = row[storage.column];
    return target == null ? null : { type: relationship.target, id: target as number };
  }
  const ids = relationshipIds(row, name);
  return Array.isArray(ids)
    ? ids.map((id) => ({ type: relationship.target, id }))
    : ids === null
      ? null
      : { type: relationship.target, id: ids };
}
