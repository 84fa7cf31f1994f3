/**
 * What a write may do with a relationship (./writes.ts): which ones an update may change, and the
 * changes the old interface always refused, inside a body too; the resources a write links to.
 */
import type { Relationship } from '../resources/types.ts';
import { relationshipIds } from './columns.ts';
import { DomainError } from './errors.ts';
import type { Row } from './load.ts';

/** No link: null, or an empty set. */
export function isEmpty(value: unknown): boolean {
  return value === null || (typeof value === 'object' && 'set' in value && (value.set as unknown[]).length === 0);
}

/** Whether an update may change the relationship (others may only be given as they are). */
export function isWritable(relationship: Relationship): boolean {
  const forbidden = relationship.forbidden?.operations.some((op) => op === 'set' || op === 'add');
  return !forbidden && (relationship.storage.kind === 'foreignKey' || relationship.storage.kind === 'join');
}

/** The always-refused changes (rest.md "Operations that are always refused"), inside a body too. */
export function refuseForbidden(relationship: Relationship, creating: boolean, field: string): void {
  const forbidden = relationship.forbidden;
  if (!forbidden?.operations.includes('set') && !forbidden?.operations.includes('add')) return;
  // These links (a customer product's customer, an item's product and type) are given when the
  // resource is created and never changed afterwards.
  if (creating && relationship.storage.kind === 'foreignKey') return;
  throw new DomainError('forbidden', `${field}: ${forbidden.message}`, field);
}

/** The resources a write links to, by type, each with the first input field that names it. */
export class LinkTargets {
  readonly byType = new Map<string, Map<number, string>>();

  add(type: string, id: number, field: string): void {
    let fields = this.byType.get(type);
    if (!fields) this.byType.set(type, (fields = new Map()));
    if (!fields.has(id)) fields.set(id, field);
  }
}

/** Whether `value` is what the relationship already holds for the stored row `current` (read whole: Writer.lockedRow). */
export function holdsAlready(
  relationship: Relationship,
  name: string,
  /** An id or null (to-one); a to-many change (Writer's ToManyChange), of which only a whole `set` can be what is held. */
  value: unknown,
  current: Row,
): boolean {
  const storage = relationship.storage;
  if (storage.kind === 'foreignKey') return (current[storage.column] ?? null) === value;
  const ids = relationshipIds(current, name);
  if (!Array.isArray(ids)) return ids === value;
  if (value === null || typeof value !== 'object' || !('set' in value)) return false;
  const given = [...new Set(value.set as readonly number[])].sort((a, b) => a - b);
  return given.length === ids.length && ids.every((id, i) => id === given[i]);
}
