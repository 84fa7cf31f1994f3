/**
 * What a write is given (a WriteInput: attributes and relationships by the registry's names), and
 * the rules it is checked against before anything is read: each attribute's value
 * (./validate.ts), the fields a new row requires, the relationships a write may set, change or
 * remove (./relationship-rules.ts). Whether the resources it links to exist is for the writer to
 * ask the database (./writes.ts `Writer.missingLinks`).
 */
import type { ResourceDefinition } from '../resources/types.ts';
import { DomainError, missingField, unknownField } from './errors.ts';
import type { Row } from './load.ts';
import { holdsAlready, isEmpty, isWritable, type LinkTargets, refuseForbidden } from './relationship-rules.ts';
import { attributeData, checkAttribute } from './validate.ts';

/** A to-many change: the whole new set, or links to add and remove. */
export type ToManyChange = { set: readonly number[] } | { add?: readonly number[]; remove?: readonly number[] };

export interface WriteInput {
  /** Attribute values by registry name; server-maintained attributes are ignored. */
  attributes?: Record<string, unknown>;
  /** To-one: the target id or null; to-many: a change. By registry name. */
  relationships?: Record<string, number | null | ToManyChange>;
}

/** An input checked: the columns it writes and the to-many changes it makes. */
export interface Prepared {
  columns: Record<string, unknown>;
  toMany: [string, ToManyChange][];
}

/**
 * An input checked against the rules and turned into columns to write and to-many changes to
 * apply, the resources it links to added to `targets` (their existence not checked here).
 * `current` is the stored row on update (undefined on create); fields are named with
 * `fieldPrefix` (`items[2].`); `takeRuleBreaks` as WriteCaller says.
 */
export function checkInput(
  resource: ResourceDefinition,
  input: WriteInput,
  current: Record<string, unknown> | undefined,
  targets: LinkTargets,
  fieldPrefix = '',
  takeRuleBreaks = false,
): Prepared {
  const creating = current === undefined;
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input.attributes ?? {})) {
    const attribute = resource.attributes[name];
    if (!attribute) throw unknownField(fieldPrefix + name, 'an attribute', resource.type);
    if (attribute.write === 'server' || value === undefined) continue;
    values[name] = checkAttribute(resource, name, value, fieldPrefix + name, current, takeRuleBreaks);
  }
  if (creating) {
    for (const [name, attribute] of Object.entries(resource.attributes)) {
      if (attribute.required && (values[name] === undefined || values[name] === null)) {
        throw missingField(fieldPrefix + name);
      }
    }
  }
  const columns = attributeData(resource, values, current);

  const toMany: [string, ToManyChange][] = [];
  const relationships = input.relationships ?? {};
  for (const [name, value] of Object.entries(relationships)) {
    const relationship = resource.relationships[name];
    const field = fieldPrefix + name;
    if (!relationship) throw unknownField(field, 'a relationship', resource.type);
    if (value === undefined) continue;
    // A document read with GET and sent back unchanged is accepted: a relationship that cannot
    // be changed may be given as it is.
    if (
      !creating &&
      (value === null || !isWritable(relationship)) &&
      holdsAlready(relationship, name, value, current as Row)
    )
      continue;
    // On creation there is nothing to change: an empty link is no link (a document copied from another resource).
    if (creating && !isWritable(relationship) && isEmpty(value)) continue;
    refuseForbidden(relationship, creating, field);
    if (relationship.cardinality === 'to-one') {
      if (relationship.storage.kind !== 'foreignKey') {
        throw new DomainError('forbidden', `${field} cannot be set here`, field);
      }
      if (value === null) {
        if (!relationship.removable || (creating && relationship.required)) {
          throw new DomainError('bad_input', `${field} cannot be removed`, field, undefined, 'invalid_relationship');
        }
        columns[relationship.storage.column] = null;
      } else {
        targets.add(relationship.target, value as number, field);
        columns[relationship.storage.column] = value;
      }
    } else {
      if (relationship.storage.kind !== 'join')
        throw new DomainError('forbidden', `${field} cannot be changed here`, field);
      const change = value as ToManyChange;
      for (const targetId of 'set' in change ? change.set : [...(change.add ?? [])])
        targets.add(relationship.target, targetId, field);
      toMany.push([name, change]);
    }
  }
  if (creating) {
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      if (relationship.required && (relationships[name] === undefined || relationships[name] === null)) {
        throw missingField(fieldPrefix + name);
      }
    }
  }
  return { columns, toMany };
}
