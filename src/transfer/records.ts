/**
 * A resource as the data tools carry it, by the spec's names: the flat record of an export file
 * (`id`, `version`, every attribute, to-one links and owners as `<name>_id`, to-many links kept in
 * a join table as `<name>_ids`), and the record an import takes from any source (a file, a CSV, a
 * service speaking the old interface). Also the order in which types are imported: a type after
 * every type it links to.
 */
import { attributeParts, columnsOf, definition, relationshipIdColumns, relationshipIds } from '../data/columns.ts';
import { businessKey } from '../data/bulk-writes.ts';
import { attributesOf } from '../data/forms.ts';
import type { Row } from '../data/load.ts';
import type { ResourceDefinition, ScalarType } from '../resources/types.ts';
import { restored } from './csv-cells.ts';

/** A resource read from a source, before the import checks it. */
export interface TransferRecord {
  /** Its id; undefined in a CSV without an `id` column, whose rows are matched on their business key. */
  id?: number;
  /** Its version at the source, kept when the row is new. */
  version?: number;
  /** Attribute values by name, as JSON gives them (dates as text). */
  attributes: Record<string, unknown>;
  /** To-one relationships and the owner (a structure's product, an item's structure) by name: an id or null; to-many: ids. */
  links: Record<string, unknown>;
  /** Links given by the target's business key (a CSV's `unit.reference` column): by relationship name. */
  keyedLinks: Record<string, unknown>;
  /** Fields the type does not have: an error, named by the import. */
  unknown: string[];
}

/** The fields of a type's flat records, in file order, and how to make one from a row read whole. */
export function recordShape(type: string) {
  const resource = definition(type);
  const toOne = Object.entries(resource.relationships).filter(([, r]) => r.storage.kind === 'foreignKey');
  const toMany = Object.entries(resource.relationships).filter(([, r]) => r.storage.kind === 'join');
  const owners = Object.entries(resource.ownerLinks ?? {});
  const columns = [
    ...columnsOf(type, {
      attributes: Object.keys(resource.attributes),
      relationships: toOne.map(([name]) => name),
      ownerLinks: owners.map(([name]) => name),
    }),
    ...relationshipIdColumns(
      type,
      toMany.map(([name]) => name),
    ),
  ];
  const links: [field: string, value: (row: Row) => unknown][] = [
    ...toOne.map(([name, r]): [string, (row: Row) => unknown] => [
      `${name}_id`,
      (row) => row[(r.storage as { column: string }).column] ?? null,
    ]),
    ...owners.map(([name, link]): [string, (row: Row) => unknown] => [`${name}_id`, (row) => row[link.column] ?? null]),
    ...toMany.map(([name]): [string, (row: Row) => unknown] => [`${name}_ids`, (row) => relationshipIds(row, name)]),
  ];
  const record = (row: Row): Record<string, unknown> => {
    const out: Record<string, unknown> = { id: row.id, version: row.version, ...attributesOf(resource, row) };
    for (const [field, value] of links) out[field] = value(row);
    return out;
  };
  const fields = ['id', 'version', ...Object.keys(resource.attributes), ...links.map(([field]) => field)];
  return { columns, record, fields };
}

/** The links a type's flat records carry, by field: `unit_id` -> `unit`, `types_ids` -> `types`. */
function linkFields(resource: ResourceDefinition): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [name, r] of Object.entries(resource.relationships)) {
    if (r.storage.kind === 'foreignKey') fields.set(`${name}_id`, name);
    if (r.storage.kind === 'join') fields.set(`${name}_ids`, name);
  }
  for (const name of Object.keys(resource.ownerLinks ?? {})) fields.set(`${name}_id`, name);
  return fields;
}

/** A flat record (an export file's line) as an import takes it. */
export function fromFlat(type: string, flat: Record<string, unknown>): TransferRecord {
  const resource = definition(type);
  const links = linkFields(resource);
  const record: TransferRecord = { attributes: {}, links: {}, keyedLinks: {}, unknown: [] };
  for (const [field, value] of Object.entries(flat)) {
    if (field === 'id') record.id = value as number;
    else if (field === 'version') record.version = value as number;
    else if (resource.attributes[field]) record.attributes[field] = value;
    else if (links.has(field)) record.links[links.get(field)!] = value;
    else record.unknown.push(field);
  }
  return record;
}

/**
 * A CSV row (cells by header) as an import takes it: `name.nl` columns make localized text, links
 * are `unit_id`, `types_ids` (ids apart by spaces) or the target's business key (`unit.reference`),
 * and text is converted to each attribute's type (an empty cell is null; `true`/`false` or 1/0 for
 * flags; text cells as ./csv-cells.ts restored says). What does not convert stays text, and the
 * import's check then says what it must be.
 */
export function fromCsv(type: string, cells: Record<string, string>): TransferRecord {
  const resource = definition(type);
  const flat: Record<string, unknown> = {};
  const keyedLinks: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [column, cell] of Object.entries(cells)) {
    const dot = column.indexOf('.');
    const name = dot < 0 ? column : column.slice(0, dot);
    const attribute = resource.attributes[name];
    if (dot >= 0 && resource.relationships[name]?.storage.kind === 'foreignKey') {
      // Only the target's business key: `unit.reference`, not `unit.description`.
      const target = definition(resource.relationships[name]!.target);
      const key = businessKey(target);
      if (column.slice(dot + 1) !== key) unknown.push(column);
      else keyedLinks[name] = cell === '' ? null : target.attributes[key]!.type === 'string' ? restored(cell) : cell;
    } else if (dot >= 0 && attribute && (attribute.type === 'localized' || typeof attribute.type === 'object')) {
      const key = column.slice(dot + 1);
      const part = attributeParts(attribute).find(([k]) => k === key);
      if (!part) unknown.push(column);
      const scalar: ScalarType = attribute.type === 'localized' ? 'string' : (attribute.type.object[key] ?? 'string');
      flat[name] = { ...(flat[name] as object | undefined), [key]: fromText(cell, scalar) };
    } else if (dot < 0 && attribute && typeof attribute.type === 'string' && attribute.type !== 'localized') {
      flat[name] = fromText(cell, attribute.type);
    } else if (column === 'id' || column === 'version' || column.endsWith('_id')) {
      flat[column] = fromText(cell, 'integer');
    } else if (column.endsWith('_ids')) {
      flat[column] =
        cell.trim() === ''
          ? []
          : cell
              .trim()
              .split(/\s+/)
              .map((id) => fromText(id, 'integer'));
    } else unknown.push(column);
  }
  const record = fromFlat(type, flat);
  record.keyedLinks = keyedLinks;
  record.unknown.push(...unknown);
  return record;
}

/** A CSV cell as a value of `type` (text without the quote the export neutralised it with); text that is not one stays as it is. */
function fromText(cell: string, type: ScalarType): unknown {
  if (cell === '') return null;
  if (type === 'string') return restored(cell);
  if (type === 'integer') return /^-?\d+$/.test(cell.trim()) ? Number(cell.trim()) : cell;
  if (type === 'boolean') {
    const flag = cell.trim().toLowerCase();
    if (flag === 'true' || flag === '1') return true;
    if (flag === 'false' || flag === '0') return false;
  }
  return cell;
}

/** The targets each type links to: to-one and to-many relationships kept on its side, and its owner. */
function dependencies(resource: ResourceDefinition): string[] {
  return [
    ...Object.values(resource.relationships)
      .filter((r) => r.storage.kind === 'foreignKey' || r.storage.kind === 'join')
      .map((r) => r.target),
    ...Object.values(resource.ownerLinks ?? {}).map((o) => o.target),
  ].filter((target) => target !== resource.type);
}

/** `types` in an order that imports each after the types it links to (in the registry's order otherwise). */
export function importOrder(types: readonly string[]): string[] {
  const wanted = new Set(types);
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (type: string) => {
    if (ordered.includes(type) || visiting.has(type)) return;
    visiting.add(type);
    for (const target of dependencies(definition(type))) if (wanted.has(target)) visit(target);
    ordered.push(type);
  };
  for (const type of types) visit(type);
  return ordered;
}
