/**
 * The neutral shape both servers' answers are turned into before they are compared: the spec's
 * resource objects with relationships resolved to nested objects instead of identifiers.
 *
 *   { type: 'products', id: 4501, attributes: { reference: 'SF004501', name: { nl, fr, en, de }, ... },
 *     relationships: { unit: { type: 'units', id: 3, attributes: {...}, relationships: {} }, ... } }
 *
 * Names are the spec's (attributes and relationships), so a supplier's `currency` attribute and
 * `currency` relationship do not clash. Every attribute of the type is present (from the resource
 * registry); only the relationships the workload follows are. Values are canonical:
 *
 * - ids and integers: JSON numbers; booleans: booleans; strings as given; missing values: null;
 * - decimals: strings in plain notation without superfluous zeros ("1.5", "100", "-0.25"): PostgreSQL
 *   returns NUMERIC(65,30) as "1.500000000000000000000000000000", REST as the JSON number 1.5;
 * - date-times: "YYYY-MM-DDTHH:MM:SSZ" in UTC, truncated to the second, because the REST layer
 *   writes ATOM dates without fractions (a zone-less value, as PostGraphile gives for
 *   `timestamp without time zone`, is UTC: Prisma stores UTC);
 * - localized text: { nl, fr, en, de }; the spec's small objects (shelf_life, ...) as objects;
 * - to-many relationships sorted by id (neither API promises an order inside a relationship).
 */
import { resourceByType } from '../../src/resources/registry.ts';
import type { AttributeType, ResourceDefinition, ScalarType } from '../../src/resources/types.ts';

export type NeutralValue = string | number | boolean | null | { [key: string]: NeutralValue };

export interface NeutralResource {
  type: string;
  id: number;
  attributes: Record<string, NeutralValue>;
  relationships: Record<string, NeutralResource | NeutralResource[] | null>;
}

/** A workload's answer: one resource (or null when not found), or a page of resources in id order. */
export type Neutral = NeutralResource | NeutralResource[] | null;

/**
 * The relationships a workload follows, by the spec's relationship names, recursively;
 * `{}` means "this relationship, with all its attributes, and nothing below it".
 */
export interface Selection {
  [relationship: string]: Selection;
}

export const LOCALES = ['nl', 'fr', 'en', 'de'] as const;

export function definition(type: string): ResourceDefinition {
  const found = resourceByType(type);
  if (!found) throw new Error(`unknown resource type ${type}`);
  return found;
}

/**
 * The attributes of a type a workload reads, as `[name, definition]` in the registry's order: every
 * one, or those named (spec names, checked against the registry).
 */
export function attributeEntries(def: ResourceDefinition, names?: readonly string[]) {
  const entries = Object.entries(def.attributes);
  if (!names) return entries;
  for (const name of names) if (!(name in def.attributes)) throw new Error(`${def.type} has no attribute ${name}`);
  return entries.filter(([name]) => names.includes(name));
}

/** The target type of a relationship, checked against the registry. */
export function relationshipTarget(type: string, relationship: string): { target: string; many: boolean } {
  const rel = definition(type).relationships[relationship];
  if (!rel) throw new Error(`${type} has no relationship ${relationship}`);
  return { target: rel.target, many: rel.cardinality === 'to-many' };
}

// ---------------------------------------------------------------------------------------------
// Canonical values
// ---------------------------------------------------------------------------------------------

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** A decimal in plain notation with no leading or trailing zeros: "0.1", "100", "-2.5". */
export function canonicalDecimal(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`not a decimal: ${value}`);
  const text = String(value).trim();
  const match = DECIMAL.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === ''))
    throw new Error(`not a decimal: ${JSON.stringify(value)}`);
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  // Shift the decimal point by the exponent over the digit string.
  let digits = whole + fraction;
  let point = whole.length + Number(exponent);
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  } else if (point > digits.length) {
    digits += '0'.repeat(point - digits.length);
  }
  const intPart = digits.slice(0, point).replace(/^0+/, '') || '0';
  const fracPart = digits.slice(point).replace(/0+$/, '');
  const negative = sign === '-' && (intPart !== '0' || fracPart !== '');
  return `${negative ? '-' : ''}${intPart}${fracPart ? `.${fracPart}` : ''}`;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Milliseconds since the epoch of a Date, a number of milliseconds, or text (no zone: UTC). */
export function dateTimeMillis(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  const match = DATE_TIME.exec(String(value).trim());
  if (!match) throw new Error(`not a date-time: ${JSON.stringify(value)}`);
  const [, y, mo, d, h, mi, s, fraction = '', zone] = match;
  let ms = Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h),
    Number(mi),
    Number(s),
    Number(fraction.slice(0, 3).padEnd(3, '0')),
  );
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2))) * 60_000;
  }
  return ms;
}

/** A date-time as "YYYY-MM-DDTHH:MM:SSZ" (UTC, whole seconds, truncated). */
export function canonicalDateTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const ms = dateTimeMillis(value);
  if (!Number.isFinite(ms)) throw new Error(`not a date-time: ${JSON.stringify(value)}`);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function canonicalScalar(type: ScalarType, value: unknown): NeutralValue {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'decimal':
      return canonicalDecimal(value);
    case 'datetime':
      return canonicalDateTime(value);
    case 'integer':
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
      throw new Error(`not an integer: ${JSON.stringify(value)}`);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      throw new Error(`not a boolean: ${JSON.stringify(value)}`);
    case 'string':
      if (typeof value === 'string') return value;
      throw new Error(`not a string: ${JSON.stringify(value)}`);
  }
}

/**
 * One attribute's canonical value. `read(suffix)` returns the raw value of the attribute
 * (suffix undefined), or of one of its parts: a locale of localized text, a field of an object.
 */
export function canonicalAttribute(type: AttributeType, read: (part?: string) => unknown): NeutralValue {
  if (type === 'localized') return Object.fromEntries(LOCALES.map((l) => [l, canonicalScalar('string', read(l))]));
  if (typeof type === 'object') {
    return Object.fromEntries(
      Object.entries(type.object).map(([field, t]) => [field, canonicalScalar(t, read(field))]),
    );
  }
  return canonicalScalar(type, read());
}

/** Sorts to-many relationships by id; leaves everything else as it is. */
export function byId(resources: NeutralResource[]): NeutralResource[] {
  return [...resources].sort((a, b) => a.id - b.id);
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------

/** Drops the relationships `selection` does not follow (e.g. REST can include one level only). */
export function project(value: Neutral, selection: Selection): Neutral {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((r) => project(r, selection) as NeutralResource);
  const relationships: NeutralResource['relationships'] = {};
  for (const [name, below] of Object.entries(selection)) {
    const related = value.relationships[name];
    relationships[name] =
      related === undefined ? null : (project(related, below) as NeutralResource | NeutralResource[] | null);
  }
  return { ...value, relationships };
}

/** The first difference between two neutral values as `path: a vs b`, or undefined when equal. */
export function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (a === b) return undefined;
  const show = (v: unknown) => {
    const text = JSON.stringify(v) ?? String(v);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  };
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
    return `${path}: ${show(a)} vs ${show(b)}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: ${show(a)} vs ${show(b)}`;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: ${a.length} elements vs ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort();
  for (const key of keys) {
    const d = firstDifference(ra[key], rb[key], `${path}.${key}`);
    if (d) return d;
  }
  return undefined;
}

/**
 * Resources in a neutral value, by type: how many (at any depth) and how many distinct ids.
 * A quick "is this workload degenerate?" check (e.g. every supplier has the same currency).
 */
export function census(value: Neutral): Record<string, { total: number; distinct: number }> {
  const seen: Record<string, { total: number; ids: Set<number> }> = {};
  const visit = (r: NeutralResource) => {
    const entry = (seen[r.type] ??= { total: 0, ids: new Set() });
    entry.total += 1;
    entry.ids.add(r.id);
    for (const related of Object.values(r.relationships)) {
      if (Array.isArray(related)) related.forEach(visit);
      else if (related) visit(related);
    }
  };
  if (Array.isArray(value)) value.forEach(visit);
  else if (value) visit(value);
  return Object.fromEntries(Object.entries(seen).map(([type, e]) => [type, { total: e.total, distinct: e.ids.size }]));
}

// ---------------------------------------------------------------------------------------------
// JSON:API documents (our REST layer, rest.md) to the neutral shape
// ---------------------------------------------------------------------------------------------

interface JsonApiIdentifier {
  type: string;
  id: number | string;
}
interface JsonApiResource extends JsonApiIdentifier {
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: JsonApiIdentifier | JsonApiIdentifier[] | null }>;
}
export interface JsonApiDocument {
  data: JsonApiResource | JsonApiResource[] | null;
  included?: JsonApiResource[];
}

/**
 * Turns a REST document (`data` plus side-loaded `included`) into the neutral shape, following the
 * relationships of `selection` through `included`. Written from rest.md for our REST layer;
 * a related resource missing from `included` is an error (the comparison would be meaningless).
 */
export function fromJsonApi(document: JsonApiDocument, selection: Selection): Neutral {
  const index = new Map<string, JsonApiResource>();
  for (const r of [...(document.included ?? []), ...([] as JsonApiResource[]).concat(document.data ?? [])]) {
    index.set(`${r.type}:${r.id}`, r);
  }
  const convert = (resource: JsonApiResource, below: Selection): NeutralResource => {
    const def = definition(resource.type);
    const raw = resource.attributes ?? {};
    const attributes = Object.fromEntries(
      Object.entries(def.attributes).map(([name, a]) => [
        name,
        canonicalAttribute(a.type, (part) => {
          const value = raw[name];
          return part === undefined ? value : (value as Record<string, unknown> | null | undefined)?.[part];
        }),
      ]),
    );
    const relationships: NeutralResource['relationships'] = {};
    for (const [name, next] of Object.entries(below)) {
      const data = resource.relationships?.[name]?.data;
      const resolve = (identifier: JsonApiIdentifier) => {
        const found = index.get(`${identifier.type}:${identifier.id}`);
        if (!found)
          throw new Error(`${identifier.type} ${identifier.id} (${resource.type}.${name}) is not in included`);
        return convert(found, next);
      };
      if (data === undefined) throw new Error(`${resource.type} ${resource.id} has no relationship ${name}`);
      relationships[name] = Array.isArray(data) ? byId(data.map(resolve)) : data === null ? null : resolve(data);
    }
    return { type: resource.type, id: Number(resource.id), attributes, relationships };
  };
  const { data } = document;
  if (Array.isArray(data)) return data.map((r) => convert(r, selection));
  return data ? convert(data, selection) : null;
}
