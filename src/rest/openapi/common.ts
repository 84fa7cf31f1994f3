/**
 * What every part of the REST API's OpenAPI document uses: component references, the names of a
 * type's schemas, media types, and the wording of a type in prose.
 */
import type { ReferenceObject, RequestBodyObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { singular, typeName } from '../../resources/names.ts';

/** The API's name: the document's title and the reference page's. */
export const API_TITLE = 'Master data REST API';

export type Schema = SchemaObject | ReferenceObject;

export { INT32_MAX } from '../../db/integers.ts';
/** How documents write date-times (../../data/forms.ts `atom`). */
export const ATOM_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+00:00$';
export const ATOM_EXAMPLE = '2026-01-31T12:00:00+00:00';
export const JSON_MEDIA = 'application/json';
export const REQUEST_MEDIA = ['application/json', 'application/vnd.api+json'] as const;

export const schemaRef = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string): ReferenceObject => ({ $ref: `#/components/responses/${name}` });

/** Component names per type: `Customer`, `CustomerAttributes`, ... */
export const names = (type: string) => {
  const n = typeName(type);
  return {
    resource: n,
    attributes: `${n}Attributes`,
    relationships: `${n}Relationships`,
    identifier: `${n}Identifier`,
    attributesInput: `${n}AttributesInput`,
    create: `${n}Create`,
    update: `${n}Update`,
    document: `${n}Document`,
    list: `${n}List`,
  };
};

/** `customer_products` -> `Customer product`. */
export function title(type: string): string {
  const words = singular(type).replace(/_/g, ' ');
  return words[0]!.toUpperCase() + words.slice(1);
}

/** `customer_products` -> `a customer product`. */
export function one(type: string): string {
  const words = singular(type).replace(/_/g, ' ');
  return `${/^[aeio]/.test(words) ? 'an' : 'a'} ${words}`;
}

export function withNull(schema: SchemaObject, nullable: boolean): SchemaObject {
  if (!nullable) return schema;
  if (schema.type !== undefined)
    return { ...schema, type: [...(Array.isArray(schema.type) ? schema.type : [schema.type]), 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

export function jsonBody(schema: Schema, description: string): RequestBodyObject {
  return { required: true, description, content: Object.fromEntries(REQUEST_MEDIA.map((m) => [m, { schema }])) };
}

export function ok(description: string, schema: Schema, headers?: ResponseObject['headers']): ResponseObject {
  return { description, ...(headers ? { headers } : {}), content: { [JSON_MEDIA]: { schema } } };
}

export const LOCATION = { Location: { $ref: '#/components/headers/Location' } };
