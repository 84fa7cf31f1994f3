/**
 * Small constructors that keep resource descriptions to one line per attribute or relationship.
 */
import type { Attribute, AttributeType, Relationship, RelationshipOperation, ResourceDefinition } from './types.ts';

type AttributeOptions = Partial<Omit<Attribute, 'type'>>;

function attribute(
  type: AttributeType,
  options: AttributeOptions = {},
): Omit<Attribute, 'column'> & { column?: string } {
  const nullable = !options.required && type !== 'boolean' && options.write !== 'server';
  return { type, write: 'client', required: false, unique: false, nullable, ...options };
}

export const attr = {
  string: (o?: AttributeOptions) => attribute('string', o),
  integer: (o?: AttributeOptions) => attribute('integer', o),
  decimal: (o?: AttributeOptions) => attribute('decimal', o),
  boolean: (o?: AttributeOptions) => attribute('boolean', o),
  localized: (o?: AttributeOptions) => attribute('localized', o),
  object: (fields: Record<string, 'string' | 'decimal' | 'boolean'>, o?: AttributeOptions) =>
    attribute({ object: fields }, o),
  /** `modified_date` / `created_date`: set by the server on every write (or on create). */
  serverDate: () => attribute('datetime', { write: 'server', nullable: false }),
};

/** Fills in each attribute's storage column (its own name unless given). */
export function attributes(defs: Record<string, ReturnType<typeof attribute>>): Record<string, Attribute> {
  return Object.fromEntries(Object.entries(defs).map(([name, a]) => [name, { ...a, column: a.column ?? name }]));
}

type RelOptions = Partial<
  Pick<
    Relationship,
    'removable' | 'required' | 'forbidden' | 'deprecated' | 'includeAliases' | 'relatedIncludes' | 'extension'
  >
>;

const TO_ONE_OPS: readonly RelationshipOperation[] = ['get', 'set', 'related'];
const TO_MANY_OPS: readonly RelationshipOperation[] = ['get', 'add', 'replace', 'remove', 'related'];

/** A to-one relationship stored as `<name>_id` on this resource's table. */
export function toOne(
  name: string,
  target: string,
  operations: readonly RelationshipOperation[] = TO_ONE_OPS,
  options: RelOptions = {},
): Relationship {
  return {
    target,
    cardinality: 'to-one',
    storage: { kind: 'foreignKey', column: `${name}_id`, relation: name },
    removable: true,
    required: false,
    operations,
    ...options,
  };
}

/** A to-many relationship stored in a join table. */
export function toManyJoin(
  name: string,
  target: string,
  join: { model: string; table: string; ownColumn: string; targetColumn: string; targetRelation: string },
  operations: readonly RelationshipOperation[] = TO_MANY_OPS,
  options: RelOptions = {},
): Relationship {
  return {
    target,
    cardinality: 'to-many',
    storage: {
      kind: 'join',
      relation: name,
      joinModel: join.model,
      joinTable: join.table,
      ownColumn: join.ownColumn,
      targetColumn: join.targetColumn,
      targetRelation: join.targetRelation,
    },
    removable: true,
    required: false,
    operations,
    ...options,
  };
}

export const operations = {
  toOne: TO_ONE_OPS,
  toMany: TO_MANY_OPS,
};

/** The four collection operations every type gets (rest.md: lookups too, so integrators can create what they link to). */
export const ALL_RESOURCE_OPERATIONS = ['list', 'add', 'get', 'update'] as const;

/** A lookup type: attributes only, the four operations, no filters or includes. */
export function lookup(
  type: string,
  model: string,
  group: ResourceDefinition['group'],
  attrs: Record<string, Attribute>,
): ResourceDefinition {
  return {
    type,
    model,
    group,
    attributes: attrs,
    relationships: {},
    operations: ALL_RESOURCE_OPERATIONS,
    filters: {},
    includes: { list: [], get: [] },
  };
}
