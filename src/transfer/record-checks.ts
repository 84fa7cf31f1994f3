/**
 * The checks of an import (./import.ts) that need the record alone: what an id is, a decimal as
 * a source that keeps doubles gives it, and what a new resource must have.
 */
import type { Attribute, ResourceDefinition } from '../resources/types.ts';
import { INT32_MAX } from '../db/integers.ts';
import type { TransferRecord } from './records.ts';

/** What a new resource lacks of what it must have (required attributes and to-one links), as [field, message]. */
export function missingOfNew(resource: ResourceDefinition, record: TransferRecord): [string, string][] {
  const missing: [string, string][] = [];
  for (const [name, attribute] of Object.entries(resource.attributes))
    if (attribute.required && attribute.write === 'client' && (record.attributes[name] ?? null) === null)
      missing.push([name, `${name} is required`]);
  const given = { ...record.links, ...record.keyedLinks };
  for (const [name, relationship] of Object.entries(resource.relationships))
    if (relationship.storage.kind === 'foreignKey' && relationship.required && (given[name] ?? null) === null)
      missing.push([`${name}_id`, `${name}_id is required`]);
  return missing;
}

export function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= INT32_MAX;
}

/**
 * A decimal the source gave as a JSON number, at the 15 significant digits a double holds
 * exactly: a service that keeps decimals as doubles writes 3.3 as 3.3000000000000003, which is
 * the same number to it and not a value of more digits (the API refuses more than 15).
 */
export function asDecimals(attribute: Attribute, value: unknown): unknown {
  const round = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Number(v.toPrecision(15)) : v);
  if (attribute.type === 'decimal') return round(value);
  if (typeof attribute.type === 'object' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const parts = attribute.type.object;
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, parts[key] === 'decimal' ? round(v) : v]));
  }
  return value;
}
