/**
 * Request documents (rest.md "Writing"): `{data: {type, id?, attributes?, relationships?}}` read
 * within the body limit, checked for shape, and turned into the data layer's write input.
 * Values themselves (types, ranges, required fields, relationship targets) are checked by the
 * data layer, the same way for both APIs.
 */
import type { Context } from 'hono';
import type { ItemInput } from '../data/bom-writes.ts';
import type { ToManyChange, WriteInput } from '../data/writes.ts';
import { ID_RANGE, idFromText, isId } from '../db/integers.ts';
import { readBody } from '../http/body.ts';
import { HttpError } from '../http/errors.ts';
import { decodeUtf8 } from '../http/input.ts';
import { resourceByType } from '../resources/registry.ts';
import type { AttributeType } from '../resources/types.ts';
import { quoted } from '../words.ts';

const JSON_TYPES = /^application\/(vnd\.api\+)?json\s*(;|$)/i;

/** A 400; `at` is where in the body (`data.attributes.nlc`), for answers that point at it (`/operations`). */
function bad(
  code: 'invalid_json' | 'invalid_attribute' | 'invalid_relationship' | 'unknown_field',
  message: string,
  at?: string,
): HttpError {
  return new HttpError(400, code, message, {}, at);
}

function mismatch(message: string, at: string): HttpError {
  return new HttpError(409, 'type_mismatch', message, {}, at);
}

/** The parsed body: JSON of a JSON media type, within the limit, valid UTF-8. */
export async function readDocument(c: Context, limit: number): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type') ?? '';
  if (!JSON_TYPES.test(type)) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      `the body must be application/json or application/vnd.api+json (got ${quoted(type || 'none')})`,
    );
  }
  const text = decodeUtf8(await readBody(c, limit));
  if (text === undefined) throw bad('invalid_json', 'the body is not valid UTF-8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw bad('invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) throw bad('invalid_json', 'the body must be a JSON object with a data member');
  return parsed;
}

/** A JSON object (not null, not a list): what every member of a document that holds members must be. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An id as JSON:API clients send it: an integer, or the digits of one; within the ids the database holds. */
function identifierId(value: unknown, where: string): number {
  const id = typeof value === 'string' ? idFromText(value) : value;
  if (isId(id)) return id;
  throw bad('invalid_relationship', `${where}.id must be ${ID_RANGE} (got ${quoted(value)})`, `${where}.id`);
}

/** A resource identifier `{type, id}` of the expected type. */
export function identifier(value: unknown, expectedType: string, where: string): number {
  if (!isObject(value) || typeof value.type !== 'string')
    throw bad(
      'invalid_relationship',
      `${where} must be a resource identifier {"type": "${expectedType}", "id": ...}`,
      where,
    );
  if (value.type !== expectedType)
    throw mismatch(`${where}.type must be ${expectedType} (got ${quoted(value.type)})`, `${where}.type`);
  return identifierId(value.id, where);
}

/**
 * `{data: [identifiers]}` of the expected type, for relationship operations; `where` is the
 * path of the document in the body ('' for the body itself), for messages.
 */
export function identifiers(document: Record<string, unknown>, expectedType: string, where = ''): number[] {
  if (!Array.isArray(document.data))
    throw bad(
      'invalid_relationship',
      `${where}data must be an array of {"type": "${expectedType}", "id": ...}`,
      `${where}data`,
    );
  return document.data.map((value, i) => identifier(value, expectedType, `${where}data[${i}]`));
}

/** `{data: identifier | null}` (or `{data: {id: null}}`, which the old interface used to remove a link). */
export function toOneIdentifier(document: Record<string, unknown>, expectedType: string, where = ''): number | null {
  const data = document.data;
  if (data === null || (isObject(data) && data.id === null)) return null;
  return identifier(data, expectedType, `${where}data`);
}

/**
 * A resource object of `type` (the primary data, or an item in a list) as write input. `id`, when
 * given, must be `pathId` on an update.
 */
export function writeInput(value: unknown, type: string, where: string, pathId?: number): WriteInput {
  if (!isObject(value))
    throw bad('invalid_json', `${where} must be a resource object {"type": "${type}", "attributes": {...}}`, where);
  if (value.type !== type)
    throw mismatch(`${where}.type must be ${type} (got ${quoted(value.type ?? null)})`, `${where}.type`);
  if (pathId !== undefined && value.id !== undefined && value.id !== null && String(value.id) !== String(pathId)) {
    throw mismatch(`${where}.id ${quoted(value.id)} does not match the id in the path (${pathId})`, `${where}.id`);
  }
  const attributes = value.attributes ?? {};
  if (!isObject(attributes))
    throw bad('invalid_attribute', `${where}.attributes must be an object`, `${where}.attributes`);
  const relationships = value.relationships ?? {};
  if (!isObject(relationships))
    throw bad('invalid_relationship', `${where}.relationships must be an object`, `${where}.relationships`);

  const resource = resourceByType(type)!;
  for (const [name, given] of Object.entries(attributes)) {
    const field = numericTextIn(resource.attributes[name]?.type, given);
    if (field !== undefined)
      throw bad(
        'invalid_attribute',
        `${where}.attributes.${name}${field} must be a JSON number (got the string ${quoted(field ? (given as Record<string, unknown>)[field.slice(1)] : given)})`,
        `${where}.attributes.${name}${field}`,
      );
  }
  const input: Required<WriteInput> = { attributes: { ...attributes }, relationships: {} };
  for (const [name, member] of Object.entries(relationships)) {
    const rel = resource.relationships[name];
    if (!rel) throw bad('unknown_field', `${name} is not a relationship of ${type}`, `${where}.relationships.${name}`);
    if (!isObject(member) || !('data' in member))
      throw bad(
        'invalid_relationship',
        `${where}.relationships.${name} must be {"data": ...}`,
        `${where}.relationships.${name}`,
      );
    const path = `${where}.relationships.${name}.`;
    if (rel.cardinality === 'to-one') {
      input.relationships[name] = toOneIdentifier(member, rel.target, path);
    } else {
      input.relationships[name] = { set: identifiers(member, rel.target, path) } satisfies ToManyChange;
    }
  }
  return input;
}

/**
 * Decimals are JSON numbers in this interface (GraphQL's Decimal also takes strings): where a
 * decimal, or a decimal field of a small object, is given as a string, its path after the
 * attribute name ('' or '.field'); undefined when there is none.
 */
function numericTextIn(type: AttributeType | undefined, given: unknown): string | undefined {
  if (type === 'decimal') return typeof given === 'string' ? '' : undefined;
  if (typeof type !== 'object' || !isObject(given)) return undefined;
  const field = Object.entries(type.object).find(([name, t]) => t === 'decimal' && typeof given[name] === 'string');
  return field && `.${field[0]}`;
}

/** Full item objects (`{data: [item, ...]}`), as adding or replacing a structure's items takes them. */
export function itemInputs(list: unknown, where: string): ItemInput[] {
  if (!Array.isArray(list))
    throw bad('invalid_json', `${where} must be an array of product_structure_items objects`, where);
  return list.map((item, i) => writeInput(item, 'product_structure_items', `${where}[${i}]`));
}
