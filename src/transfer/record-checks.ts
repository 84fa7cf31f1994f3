/**
 * The checks of an import (./import.ts) that need the record alone: what a new resource must
 * have. (An id is what src/db/integers.ts isId says; a decimal a source gives as a JSON number is
 * read as every write path reads one: src/db/decimal.ts.)
 */
import type { ResourceDefinition } from '../resources/types.ts';
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
