/**
 * The OpenAPI 3.1 document of the REST compatibility layer, generated from the route table the
 * app registers (./routes.ts) and the resource registry, so the two cannot disagree: every route
 * with its path parameter, the query parameters it takes (./query.ts), its request document
 * (./body.ts and the write rules of ../data/writes.ts), its answers (./documents.ts, ./api.ts)
 * and its errors (rest.md "Error bodies", auth.md). Built once: nothing in it changes at run time.
 *
 * Dependency: openapi3-ts, the OpenAPI 3.1 object model as TypeScript types with a small
 * builder. A misspelt keyword or a member in the wrong place is then a compile error here, not
 * a document that validators and Swagger UI reject or silently ignore; it has no runtime cost
 * beyond the builder.
 */
import { readFileSync } from 'node:fs';
import {
  OpenApiBuilder,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type ReferenceObject,
  type RequestBodyObject,
  type ResponseObject,
  type ResponsesObject,
  type SchemaObject,
} from 'openapi3-ts/oas31';
import { requiredScope } from '../auth/bearer.ts';
import { CLIENT_BASIC_SCHEME, OAUTH_TAG, oauthPaths } from '../auth/openapi.ts';
import { MAX_SIGNIFICANT_DIGITS } from '../data/decimal.ts';
import { MAX_TEXT_LENGTH } from '../data/validate.ts';
import { pascal, singular, typeName } from '../resources/names.ts';
import type { ErrorCode } from '../http/errors.ts';
import { resourceByType, resources } from '../resources/registry.ts';
import {
  LOCALES,
  type Attribute,
  type Filter,
  type Relationship,
  type ResourceDefinition,
  type ScalarType,
} from '../resources/types.ts';
import { isWritable } from '../data/writes.ts';
import { DEFAULT_PER_PAGE, includeValues, MAX_PER_PAGE } from './query.ts';
import { REST_ROUTES, type RestRoute } from './routes.ts';

type Schema = SchemaObject | ReferenceObject;

export const API_TITLE = 'Master data REST API';

/** Every shape-B code, with when it is answered (typed against ErrorCode: a new code must be described here). */
const ERROR_CODES: Record<ErrorCode, string> = {
  invalid_json: 'the body is not a JSON object with a `data` member (malformed JSON, not UTF-8, wrong shape)',
  invalid_parameter: 'a query parameter that the operation does not take, is repeated, or has a malformed value',
  unknown_field: 'an attribute or relationship the type does not have',
  missing_field: 'an attribute or relationship required on ADD is missing',
  invalid_attribute: 'an attribute value of the wrong JSON type, out of range, or not storable',
  invalid_relationship: 'a malformed resource identifier, or `null` for a relationship that cannot be removed',
  type_mismatch:
    "`data.type` (or an identifier's `type`) is not the expected type, or `data.id` differs from the path id",
  conflict: 'a unique value (`reference`, `gtin`, `username`, ...) is taken, or the product already has a structure',
  bom_cycle: 'the item would make the bill of material contain itself',
  precondition_failed:
    '`If-Match` names no current entity tag of the resource: it changed since it was read (412); nothing was written',
  idempotency_key_in_use:
    'a request with this `Idempotency-Key` is still running (409, with `Retry-After`), or ended without its answer being kept (409)',
  idempotency_key_reused:
    'this `Idempotency-Key` was used within 24 hours for another request (422): another method, path, query or body',
  forbidden: 'an operation the interface always refuses; the message says what to use instead',
  method_not_allowed: 'a method the path does not take (the `Allow` header lists those it does)',
  unsupported_media_type: 'a body that is not `application/json` or `application/vnd.api+json`',
  payload_too_large: 'a body over the limit (`MAX_BODY_BYTES`); the connection is closed',
  rate_limited: 'too many failed attempts (the token endpoints)',
  service_unavailable: 'the database is unavailable; retry after `Retry-After` seconds',
  internal_error: 'a bug; the answer carries no internals',
};

/** Messages as the service words them, for the examples. */
const ERROR_EXAMPLES: Partial<Record<ErrorCode, string>> = {
  invalid_parameter: 'per_page must be an integer from 1 to 50 (got "100")',
  invalid_json: 'the body is not valid JSON: Unexpected end of JSON input',
  forbidden:
    'the customer of a customer product cannot be changed; add a customer product for the other customer instead',
  conflict: 'reference must be unique among customers: another one already has this value',
  type_mismatch: 'data.type must be customers (got "products")',
  bom_cycle: 'items[0].product: products 401 cannot be an item of its own structure',
  method_not_allowed: 'DELETE is not allowed on /customers/1; allowed: GET, HEAD, PATCH, PUT',
  unsupported_media_type: 'the body must be application/json or application/vnd.api+json (got "text/plain")',
  payload_too_large: 'the request body exceeds 1048576 bytes',
  service_unavailable: 'the database is unavailable; retry later',
};

const BEARER_ERRORS = {
  invalid_request: 'no access token (401), or `Authorization: Bearer` with nothing after it (400)',
  invalid_token: 'an unknown, malformed, expired or revoked access token: refresh it',
  insufficient_scope: 'the token lacks the scope the operation needs (`read` for GET, `write` for the rest)',
} as const;
type BearerCode = keyof typeof BEARER_ERRORS;

const INT32_MAX = 2147483647;
/** How documents write date-times (documents.ts `atom`). */
const ATOM_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+00:00$';
const ATOM_EXAMPLE = '2026-01-31T12:00:00+00:00';
const JSON_MEDIA = 'application/json';
const REQUEST_MEDIA = ['application/json', 'application/vnd.api+json'] as const;

const schemaRef = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string): ReferenceObject => ({ $ref: `#/components/responses/${name}` });

/** Component names per type: `Customer`, `CustomerAttributes`, ... */
const names = (type: string) => {
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
function title(type: string): string {
  const words = singular(type).replace(/_/g, ' ');
  return words[0]!.toUpperCase() + words.slice(1);
}

/** `customer_products` -> `a customer product`. */
function one(type: string): string {
  const words = singular(type).replace(/_/g, ' ');
  return `${/^[aeio]/.test(words) ? 'an' : 'a'} ${words}`;
}

function withNull(schema: SchemaObject, nullable: boolean): SchemaObject {
  if (!nullable) return schema;
  if (schema.type !== undefined)
    return { ...schema, type: [...(Array.isArray(schema.type) ? schema.type : [schema.type]), 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

const DECIMAL_NOTE = `An exact decimal of at most ${MAX_SIGNIFICANT_DIGITS} significant digits: what is written is read back unchanged.`;

/** A scalar value as documents show it (`read`) or as request bodies take it (`write`). */
function scalar(type: ScalarType, direction: 'read' | 'write'): SchemaObject {
  switch (type) {
    case 'string':
      return direction === 'write' ? { type: 'string', maxLength: MAX_TEXT_LENGTH } : { type: 'string' };
    case 'integer':
      return { type: 'integer', format: 'int32', minimum: -INT32_MAX - 1, maximum: INT32_MAX };
    case 'decimal':
      return { type: 'number', description: DECIMAL_NOTE };
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'string', format: 'date-time', pattern: ATOM_PATTERN, examples: [ATOM_EXAMPLE] };
  }
}

function attributeNotes(type: string, attribute: Attribute): string[] {
  const notes: string[] = [];
  if (attribute.write === 'server')
    notes.push('Set by the server on every write (ATOM form); ignored in request bodies.');
  if (attribute.required) notes.push('Required on ADD.');
  if (attribute.unique)
    notes.push(
      `Unique among ${type}${attribute.nullable ? ' (where not null)' : ''}: a duplicate is 409 \`conflict\`.`,
    );
  if (attribute.observedValues)
    notes.push(
      `Values observed in the old service: ${attribute.observedValues.map((v) => `\`${v}\``).join(', ')} (no others are documented).`,
    );
  return notes;
}

/** An attribute as documents show it: every attribute is present; localized text and objects always as objects. */
function readAttribute(type: string, attribute: Attribute): Schema {
  const description = attributeNotes(type, attribute).join(' ') || undefined;
  if (attribute.type === 'localized') return { ...schemaRef('LocalizedText'), ...(description ? { description } : {}) };
  if (typeof attribute.type === 'object') {
    const fields = attribute.type.object;
    return {
      type: 'object',
      ...(description ? { description } : {}),
      required: Object.keys(fields),
      additionalProperties: false,
      properties: Object.fromEntries(
        Object.entries(fields).map(([field, t]) => [
          field,
          withNull(
            {
              ...scalar(t, 'read'),
              ...(t === 'string' && attribute.observedValues ? { examples: [...attribute.observedValues] } : {}),
            },
            true,
          ),
        ]),
      ),
    };
  }
  const schema = withNull(scalar(attribute.type, 'read'), attribute.nullable);
  if (attribute.write === 'server') schema.readOnly = true;
  if (attribute.observedValues) schema.examples = [...attribute.observedValues];
  if (description) schema.description = [schema.description, description].filter(Boolean).join(' ');
  return schema;
}

/** An attribute as request bodies take it: `null` clears it where it may be null. */
function writeAttribute(type: string, attribute: Attribute): Schema {
  const description = attributeNotes(type, attribute).join(' ') || undefined;
  const described = (schema: SchemaObject): SchemaObject =>
    description ? { ...schema, description: [schema.description, description].filter(Boolean).join(' ') } : schema;
  if (attribute.write === 'server')
    return described({ ...scalar(attribute.type as ScalarType, 'read'), readOnly: true });
  if (attribute.type === 'localized') {
    const merge = 'Merged key by key: the languages given are set, the others kept.';
    return attribute.nullable
      ? {
          anyOf: [schemaRef('LocalizedTextInput'), { type: 'null' }],
          description: `${merge} \`null\` clears all four.${description ? ` ${description}` : ''}`,
        }
      : { ...schemaRef('LocalizedTextInput'), description: `${merge}${description ? ` ${description}` : ''}` };
  }
  if (typeof attribute.type === 'object') {
    const fields = attribute.type.object;
    return described(
      withNull(
        {
          type: 'object',
          description: 'Merged field by field: the fields given are set, the others kept.',
          additionalProperties: false,
          properties: Object.fromEntries(
            Object.entries(fields).map(([field, t]) => [field, withNull(scalar(t, 'write'), true)]),
          ),
        },
        attribute.nullable,
      ),
    );
  }
  const schema = scalar(attribute.type, 'write');
  if (attribute.positive) schema.exclusiveMinimum = 0;
  if (attribute.observedValues) schema.examples = [...attribute.observedValues];
  return described(withNull(schema, attribute.nullable));
}

/** A resource identifier as request bodies take it: the id as a number or a string of digits. */
function identifierInput(target: string): SchemaObject {
  return {
    type: 'object',
    required: ['type', 'id'],
    properties: { type: { const: target }, id: schemaRef('IdInput') },
  };
}

/**
 * A to-one relationship's `data` in a request: an identifier; or `null` (also `{"id": null}`, as
 * the old interface sent it) where it removes the link, or, on UPDATE, where the link is unset.
 */
function toOneInput(rel: Relationship, nulls: 'refused' | 'remove' | 'unset'): Schema {
  if (nulls === 'refused') return identifierInput(rel.target);
  return {
    anyOf: [
      identifierInput(rel.target),
      { type: 'null' },
      { type: 'object', required: ['id'], properties: { id: { type: 'null' } } },
    ],
    description:
      nulls === 'remove'
        ? '`null` (or `{"id": null}`) removes the link.'
        : 'The link cannot be removed: `null` (or `{"id": null}`) is taken only where it is unset (a document read back), else 400 `invalid_relationship`.',
  };
}

/** A relationship's `data` as documents show it. */
function relationshipData(rel: Relationship): Schema {
  const identifier = schemaRef(names(rel.target).identifier);
  if (rel.cardinality === 'to-many') return { type: 'array', items: identifier };
  return rel.required ? identifier : { oneOf: [identifier, { type: 'null' }] };
}

function relationshipInput(name: string, rel: Relationship, creating: boolean): Schema {
  let data: Schema;
  let description: string | undefined;
  if (rel.storage.kind === 'children' && creating) {
    // A structure's items come as full item objects when it is added (ADD product structure).
    data = { type: 'array', items: schemaRef(names(rel.target).create) };
    description = `The ${name} as full objects, created with it.`;
  } else if (rel.cardinality === 'to-many') {
    data = { type: 'array', items: identifierInput(rel.target) };
    description = 'Replaces the whole set.';
  } else if (creating) {
    data = toOneInput(rel, rel.removable && !rel.required ? 'remove' : 'refused');
  } else {
    data = toOneInput(rel, rel.removable ? 'remove' : 'unset');
  }
  if (!creating && !isWritable(rel)) {
    // Only the current value is taken: what `null` would otherwise mean does not apply.
    if ('anyOf' in data) delete data.description;
    description = `Cannot be changed here (403 \`forbidden\`${rel.forbidden ? `: ${rel.forbidden.message}` : ''}); it may be given as it is, so that a document read with GET can be sent back.`;
  } else if (rel.deprecated) {
    description = `${description ? `${description} ` : ''}Deprecated: use \`${rel.deprecated.replacedBy}\`.`;
  }
  return {
    type: 'object',
    required: ['data'],
    properties: { data },
    ...(description ? { description } : {}),
    ...(rel.deprecated ? { deprecated: true } : {}),
  };
}

/** Relationships an ADD body may carry: links by identifier, children as objects (writes.ts `prepare`). */
function creatable(rel: Relationship): boolean {
  return rel.storage.kind !== 'inverse';
}

/** The schemas of one resource type. */
function resourceSchemas(resource: ResourceDefinition): Record<string, SchemaObject> {
  const { type } = resource;
  const n = names(type);
  const rels = Object.entries(resource.relationships);
  const attributeNames = Object.keys(resource.attributes);
  const requiredAttributes = attributeNames.filter((a) => resource.attributes[a]!.required);
  const createRels = rels.filter(([, rel]) => creatable(rel));
  const requiredRels = createRels.filter(([, rel]) => rel.required).map(([name]) => name);
  const includable = (list: readonly string[]) => [
    ...new Set(list.map((name) => resource.relationships[name]!.target)),
  ];

  const schemas: Record<string, SchemaObject> = {
    [n.identifier]: {
      type: 'object',
      description: `Identifies ${one(type)}.`,
      required: ['type', 'id'],
      additionalProperties: false,
      properties: { type: { const: type }, id: { type: 'integer', minimum: 1 } },
    },
    [n.attributes]: {
      type: 'object',
      required: attributeNames,
      additionalProperties: false,
      properties: Object.fromEntries(attributeNames.map((a) => [a, readAttribute(type, resource.attributes[a]!)])),
    },
    [n.resource]: {
      type: 'object',
      description: `${title(type)} (type \`${type}\`).`,
      required: ['type', 'id', 'attributes', 'relationships', 'links', 'meta'],
      properties: {
        type: { const: type },
        id: { type: 'integer', minimum: 1 },
        attributes: schemaRef(n.attributes),
        relationships: rels.length > 0 ? schemaRef(n.relationships) : { type: 'object', maxProperties: 0 },
        links: schemaRef('SelfLink'),
        meta: schemaRef('ResourceMeta'),
      },
    },
    [n.attributesInput]: {
      type: 'object',
      description: 'Attributes to write; those not given are kept (UPDATE) or left empty (ADD).',
      additionalProperties: false,
      properties: Object.fromEntries(attributeNames.map((a) => [a, writeAttribute(type, resource.attributes[a]!)])),
    },
    [n.create]: {
      type: 'object',
      description: `${one(type)} to add.`.replace(/^a/, 'A'),
      required: [
        'type',
        ...(requiredAttributes.length > 0 ? ['attributes'] : []),
        ...(requiredRels.length > 0 ? ['relationships'] : []),
      ],
      properties: {
        type: { const: type },
        attributes:
          requiredAttributes.length > 0
            ? { type: 'object', allOf: [schemaRef(n.attributesInput)], required: requiredAttributes }
            : schemaRef(n.attributesInput),
        ...(createRels.length > 0
          ? {
              relationships: {
                type: 'object',
                additionalProperties: false,
                ...(requiredRels.length > 0 ? { required: requiredRels } : {}),
                properties: Object.fromEntries(
                  createRels.map(([name, rel]) => [name, relationshipInput(name, rel, true)]),
                ),
              },
            }
          : {}),
      },
    },
    [n.update]: {
      type: 'object',
      description: 'Only what is given changes. A document read with GET may be sent back as it is.',
      required: ['type'],
      properties: {
        type: { const: type },
        id: { ...schemaRef('IdInput'), description: 'If given, the id in the path (else 409 `type_mismatch`).' },
        attributes: schemaRef(n.attributesInput),
        ...(rels.length > 0
          ? {
              relationships: {
                type: 'object',
                additionalProperties: false,
                properties: Object.fromEntries(rels.map(([name, rel]) => [name, relationshipInput(name, rel, false)])),
              },
            }
          : {}),
      },
    },
    [n.document]: {
      type: 'object',
      required: ['data'],
      properties: {
        data: schemaRef(n.resource),
        ...(resource.includes.get.length > 0
          ? { included: included(includable(resource.includes.get), 'present when `include` is given') }
          : {}),
      },
    },
    [n.list]: {
      type: 'object',
      required: ['data', 'included', 'meta', 'links'],
      properties: {
        data: { type: 'array', items: schemaRef(n.resource), maxItems: MAX_PER_PAGE },
        included: included(includable(resource.includes.list), 'empty unless `include` is given'),
        meta: schemaRef('CollectionMeta'),
        links: schemaRef('CollectionLinks'),
      },
    },
  };
  if (rels.length > 0) {
    schemas[n.relationships] = {
      type: 'object',
      description: 'Every relationship, always present.',
      required: rels.map(([name]) => name),
      additionalProperties: false,
      properties: Object.fromEntries(
        rels.map(([name, rel]) => [
          name,
          {
            type: 'object',
            required: ['data', 'links'],
            properties: { data: relationshipData(rel), links: schemaRef('RelationshipLinks') },
            ...(rel.deprecated
              ? { deprecated: true, description: `Deprecated: use \`${rel.deprecated.replacedBy}\`.` }
              : {}),
          } satisfies SchemaObject,
        ]),
      ),
    };
  }
  return schemas;
}

/** `included`: the related resources, each once, never one of the primary data. */
function included(targets: readonly string[], when: string): SchemaObject {
  const description = `Related resources, each once (unique by type and id), never one of the primary data; ${when}.`;
  if (targets.length === 0) return { type: 'array', maxItems: 0, description };
  const items =
    targets.length === 1
      ? schemaRef(names(targets[0]!).resource)
      : { oneOf: targets.map((t) => schemaRef(names(t).resource)) };
  return { type: 'array', items, description };
}

function sharedSchemas(): Record<string, SchemaObject> {
  const uri: SchemaObject = { type: 'string', format: 'uri' };
  return {
    LocalizedText: {
      type: 'object',
      description: 'Localized text: all four languages, `null` where unset.',
      required: [...LOCALES],
      additionalProperties: false,
      properties: Object.fromEntries(LOCALES.map((l) => [l, { type: ['string', 'null'] }])),
    },
    LocalizedTextInput: {
      type: 'object',
      description: 'Localized text to write: the languages given are set (`null` clears one), the others kept.',
      additionalProperties: false,
      properties: Object.fromEntries(LOCALES.map((l) => [l, { type: ['string', 'null'], maxLength: MAX_TEXT_LENGTH }])),
    },
    IdInput: {
      description: 'A resource id: a positive integer, or a string of its digits.',
      oneOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', pattern: '^[1-9][0-9]{0,15}$' },
      ],
    },
    SelfLink: { type: 'object', required: ['self'], properties: { self: uri } },
    ResourceMeta: {
      type: 'object',
      description: 'Extension (not in the master-data spec). Ignored in request bodies.',
      required: ['version'],
      properties: {
        version: {
          type: 'integer',
          minimum: 1,
          description:
            '1 when the resource was added, one more with every write that changed its document; a write that changes nothing keeps it.',
        },
      },
    },
    RelationshipLinks: { type: 'object', required: ['self', 'related'], properties: { self: uri, related: uri } },
    CollectionMeta: {
      type: 'object',
      required: ['total', 'count', 'pages', 'per_page'],
      properties: {
        total: { type: 'integer', minimum: 0, description: 'Resources matching the filters.' },
        count: { type: 'integer', minimum: 0, description: 'Resources on this page.' },
        pages: { type: 'integer', minimum: 0, description: 'Pages; 0 when `total` is 0.' },
        per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE },
      },
    },
    CollectionLinks: {
      type: 'object',
      description: 'Absolute URLs that keep the other query parameters.',
      required: ['self', 'first', 'prev', 'next', 'last'],
      properties: {
        self: uri,
        first: uri,
        prev: { ...uri, type: ['string', 'null'], description: '`null` on the first page.' },
        next: { ...uri, type: ['string', 'null'], description: '`null` on the last page.' },
        last: uri,
      },
    },
    ErrorA: {
      type: 'object',
      description: 'Shape A, the answer for 404: `detail` names what was not found.',
      required: ['errors'],
      properties: {
        errors: {
          type: 'object',
          required: ['status', 'detail'],
          properties: {
            status: { type: 'integer', const: 404 },
            detail: { type: 'string', examples: ['customers 42 not found'] },
          },
        },
      },
    },
    ErrorB: {
      type: 'object',
      description: `Shape B, for every other 4xx and for 5xx. Codes:\n\n${Object.entries(ERROR_CODES)
        .map(([code, when]) => `- \`${code}\`: ${when}`)
        .join('\n')}`,
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'http_code', 'message'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_CODES) },
            http_code: { type: 'integer', description: 'The HTTP status.' },
            message: { type: 'string', description: 'What went wrong, naming the field or parameter.' },
          },
        },
      },
    },
    BearerError: {
      type: 'object',
      description: `An authentication error (RFC 6750), the same error as in \`WWW-Authenticate\`:\n\n${Object.entries(
        BEARER_ERRORS,
      )
        .map(([code, when]) => `- \`${code}\`: ${when}`)
        .join('\n')}`,
      required: ['error', 'error_description'],
      properties: {
        error: { type: 'string', enum: Object.keys(BEARER_ERRORS) },
        error_description: { type: 'string' },
      },
    },
  };
}

/** An error answer: shape B with the given codes, and/or a bearer error with the given codes. */
function errorResponse(
  status: number,
  description: string,
  codes: readonly ErrorCode[],
  bearer: readonly BearerCode[] = [],
): ResponseObject {
  const shapeB: SchemaObject = {
    type: 'object',
    allOf: [schemaRef('ErrorB')],
    properties: {
      error: {
        type: 'object',
        properties: { code: { type: 'string', enum: [...codes] }, http_code: { type: 'integer', const: status } },
      },
    },
  };
  const bearerError: SchemaObject = {
    type: 'object',
    allOf: [schemaRef('BearerError')],
    properties: { error: { type: 'string', enum: [...bearer] } },
  };
  const schema: SchemaObject =
    codes.length === 0 ? bearerError : bearer.length === 0 ? shapeB : { oneOf: [shapeB, bearerError] };
  // Swagger UI would draw every example with the base schema's first code: show this answer's own.
  const example =
    codes.length > 0
      ? { error: { code: codes[0], http_code: status, message: ERROR_EXAMPLES[codes[0]!] ?? ERROR_CODES[codes[0]!] } }
      : { error: bearer[0], error_description: 'an access token is required: Authorization: Bearer <token>' };
  const headers: ResponseObject['headers'] = {};
  if (status === 401) headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
  if (status === 403 && bearer.length > 0)
    headers['WWW-Authenticate'] = {
      description:
        'With `insufficient_scope`: `Bearer realm="master-data", error="insufficient_scope", ..., scope="write"`.',
      schema: { type: 'string' },
    };
  if (codes.includes('service_unavailable') || codes.includes('idempotency_key_in_use'))
    headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
  if (codes.includes('method_not_allowed')) headers.Allow = { $ref: '#/components/headers/Allow' };
  const lines = [
    ...codes.map((c) => `\`${c}\`: ${ERROR_CODES[c]}`),
    ...bearer.map((c) => `\`${c}\` (bearer): ${BEARER_ERRORS[c]}`),
  ];
  return {
    description: `${description}\n\n${lines.map((l) => `- ${l}`).join('\n')}`,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: { [JSON_MEDIA]: { schema, example } },
  };
}

const BODY_CODES: readonly ErrorCode[] = [
  'invalid_json',
  'unknown_field',
  'missing_field',
  'invalid_attribute',
  'invalid_relationship',
  'invalid_parameter',
];

/**
 * The 409 answers, each also as a POST answers it, where `Idempotency-Key` adds its own 409
 * (OpenAPI has one response per status).
 */
function conflictResponses(codes: Record<string, ErrorCode[]>): Record<string, ResponseObject> {
  return Object.fromEntries(
    Object.entries(codes).flatMap(([name, list]) => [
      [name, errorResponse(409, 'Conflict (shape B).', list)],
      [
        `${name}OnPost`,
        errorResponse(409, 'Conflict (shape B); `Retry-After` when the same `Idempotency-Key` is still running.', [
          ...list,
          'idempotency_key_in_use',
        ]),
      ],
    ]),
  );
}

/** The error answers, each once in components; operations refer to them. */
const ERROR_RESPONSES: Record<string, ResponseObject> = {
  BadRequest: errorResponse(
    400,
    'Bad query parameters (shape B), or an empty bearer token.',
    ['invalid_parameter'],
    ['invalid_request'],
  ),
  BadToken: errorResponse(400, '`Authorization: Bearer` with no token.', [], ['invalid_request']),
  BadRequestBody: errorResponse(400, 'A bad body or query parameter (shape B), or an empty bearer token.', BODY_CODES, [
    'invalid_request',
  ]),
  Unauthorized: errorResponse(
    401,
    'No valid access token. `WWW-Authenticate: Bearer realm="master-data"` (with `error="invalid_token"` when a token was given).',
    [],
    ['invalid_request', 'invalid_token'],
  ),
  ForbiddenScope: errorResponse(403, 'The token lacks the `read` scope.', [], ['insufficient_scope']),
  Forbidden: errorResponse(
    403,
    'Refused (shape B `forbidden`), or the token lacks the `write` scope.',
    ['forbidden'],
    ['insufficient_scope'],
  ),
  NotFound: {
    description:
      'Shape A: the resource, or a relationship target named in the body, does not exist (an id that is not a positive integer is not found either).',
    content: { [JSON_MEDIA]: { schema: schemaRef('ErrorA') } },
  },
  MethodNotAllowed: errorResponse(
    405,
    'A method the path does not take; not listed per operation: every path answers it to the methods it does not document.',
    ['method_not_allowed'],
  ),
  ...conflictResponses({
    Conflict: ['conflict', 'type_mismatch'],
    TypeMismatch: ['type_mismatch'],
    ItemsConflict: ['type_mismatch', 'bom_cycle'],
    StructureConflict: ['conflict', 'type_mismatch', 'bom_cycle'],
  }),
  NotModified: {
    description: 'The client holds the current answer (`If-None-Match` names its tag): no body.',
    headers: {
      ETag: { $ref: '#/components/headers/ETag' },
      'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
    },
  },
  PreconditionFailed: errorResponse(
    412,
    'The resource changed since the client read it: `If-Match` names no current tag of it. Nothing was written; read it again.',
    ['precondition_failed'],
  ),
  IdempotencyKeyReused: errorResponse(
    422,
    'The `Idempotency-Key` was used within 24 hours for another request. Nothing was written.',
    ['idempotency_key_reused'],
  ),
  PayloadTooLarge: errorResponse(413, 'The body is too large (shape B).', ['payload_too_large']),
  UnsupportedMediaType: errorResponse(415, 'The body is not JSON (shape B).', ['unsupported_media_type']),
  ServiceUnavailable: errorResponse(503, 'The database is unavailable (shape B); retry after `Retry-After` seconds.', [
    'service_unavailable',
  ]),
};

function filterParameter(name: string, filter: Filter): ParameterObject {
  const base = { name, in: 'query' as const, required: false };
  switch (filter.kind) {
    case 'equals':
      return {
        ...base,
        description: `Only the resources whose \`${filter.column}\` is exactly this.`,
        schema: { type: 'string' },
      };
    case 'integer':
      return {
        ...base,
        description: `Only the resources whose \`${filter.column}\` is this id.`,
        schema: { type: 'integer', format: 'int32' },
      };
    case 'flag':
      return {
        ...base,
        description: `\`1\`: only the resources whose \`${filter.column}\` is true; \`0\`: only those whose it is false.`,
        schema: { type: 'integer', enum: [0, 1] },
      };
    case 'gtin':
      return {
        ...base,
        description:
          'Only the product with this GTIN, as digits; a GTIN stored with leading zeros is found without them too.',
        schema: { type: 'string', pattern: '^[0-9]{1,14}$' },
      };
    case 'relatedReference':
      return {
        ...base,
        description: `Only the resources whose \`${filter.relationship}\` has this \`reference\`.`,
        schema: { type: 'string' },
      };
    case 'after':
      return {
        ...base,
        description: `Only the resources with \`${filter.column}\` strictly after this ATOM date-time (\`${ATOM_EXAMPLE}\`; a \`Z\` suffix and fractional seconds are accepted).`,
        schema: { type: 'string', format: 'date-time', examples: [ATOM_EXAMPLE] },
      };
  }
}

function includeParameter(route: RestRoute): ParameterObject | undefined {
  const values = includeValues(route);
  if (values.size === 0) return undefined;
  const aliases = [...values]
    .filter(([spelling, name]) => spelling !== name)
    .map(([spelling, name]) => `\`${spelling}\` is taken as \`${name}\``);
  return {
    name: 'include',
    in: 'query',
    required: false,
    description: `Related resources to side-load into \`included\`, comma-separated. Any other value is 400 \`invalid_parameter\`.${aliases.length > 0 ? ` ${aliases.join('; ')}.` : ''}`,
    style: 'form',
    explode: false,
    schema: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...values.keys()] } },
  };
}

function jsonBody(schema: Schema, description: string): RequestBodyObject {
  return { required: true, description, content: Object.fromEntries(REQUEST_MEDIA.map((m) => [m, { schema }])) };
}

function ok(description: string, schema: Schema, headers?: ResponseObject['headers']): ResponseObject {
  return { description, ...(headers ? { headers } : {}), content: { [JSON_MEDIA]: { schema } } };
}

const LOCATION = { Location: { $ref: '#/components/headers/Location' } };

/** The relationship document `{links, data, included?}`. */
function relationshipDocument(rel: Relationship, withIncluded: 'never' | 'optional' | 'always'): SchemaObject {
  return {
    type: 'object',
    required: ['links', 'data', ...(withIncluded === 'always' ? ['included'] : [])],
    properties: {
      links: schemaRef('RelationshipLinks'),
      data: relationshipData(rel),
      ...(withIncluded === 'never'
        ? {}
        : {
            included: included(
              [rel.target],
              withIncluded === 'optional' ? 'present when `include` is given' : 'the items as they now are',
            ),
          }),
    },
  };
}

/** One route as an operation. */
function operationOf(route: RestRoute): OperationObject {
  const resource = resourceByType(route.type)!;
  const n = names(route.type);
  const rel = route.relationship ? resource.relationships[route.relationship] : undefined;
  const target = rel ? names(rel.target) : undefined;
  const scope = requiredScope(route.method, route.path);
  const reading = scope === 'read';
  const parameters: (ParameterObject | ReferenceObject)[] = [];
  const include = includeParameter(route);
  if (include) parameters.push(include);
  if (route.operation === 'list') {
    parameters.push({ $ref: '#/components/parameters/page' }, { $ref: '#/components/parameters/per_page' });
    for (const [name, filter] of Object.entries(resource.filters)) parameters.push(filterParameter(name, filter));
  }

  const relName = route.relationship ?? '';
  const R = relName ? pascal(relName) : '';
  const N = typeName(route.type);
  const summaries: Record<RestRoute['operation'], [string, string]> = {
    list: [`List ${route.type.replace(/_/g, ' ')}`, `list${pascal(route.type)}`],
    add: [`Add ${one(route.type)}`, `add${N}`],
    get: [`Get ${one(route.type)}`, `get${N}`],
    update: [
      route.method === 'PUT' ? `Update ${one(route.type)} (PUT, an alias of PATCH)` : `Update ${one(route.type)}`,
      `update${N}${route.method === 'PUT' ? 'Put' : ''}`,
    ],
    'rel-get': [`Get the ${relName} relationship of ${one(route.type)}`, `get${N}${R}Relationship`],
    'rel-set': [`Set the ${relName} relationship of ${one(route.type)}`, `set${N}${R}Relationship`],
    'related-get': [`Get the ${relName} of ${one(route.type)}`, `get${N}Related${R}`],
    'rel-add': [`Add to the ${relName} relationship of ${one(route.type)}`, `add${N}${R}Relationship`],
    'rel-replace': [`Replace the ${relName} relationship of ${one(route.type)}`, `replace${N}${R}Relationship`],
    'rel-remove': [`Remove from the ${relName} relationship of ${one(route.type)}`, `remove${N}${R}Relationship`],
    'add-structure': [`Add the product structure of a product`, `add${N}ProductStructure`],
    'add-items': [`Add items to a product structure`, `add${N}Items`],
  };
  const [summary, operationId] = summaries[route.operation];
  const notes: string[] = [];
  let requestBody: RequestBodyObject | undefined;
  let success: [string, ResponseObject] | undefined;
  let conflict: string | undefined = 'TypeMismatch';
  let notFound = true;

  if (route.refused) {
    notes.push(`**Always refused**: 403 \`forbidden\`. ${route.refused}.`);
  } else {
    switch (route.operation) {
      case 'list':
        notes.push(
          `Ordered by \`id\`. \`page\` past the last: 200 with empty \`data\`. Unknown query parameters: 400.`,
        );
        success = ['200', ok(`A page of ${route.type}.`, schemaRef(n.list))];
        notFound = false;
        break;
      case 'get':
        success = ['200', ok(`The ${singular(route.type).replace(/_/g, ' ')}.`, schemaRef(n.document))];
        break;
      case 'add':
        notes.push(
          '`modified_date` and `created_date` are set by the server. Relationship targets must exist (else 404).',
        );
        requestBody = jsonBody(
          { type: 'object', required: ['data'], properties: { data: schemaRef(n.create) } },
          `{"data": ${n.create}}`,
        );
        success = ['201', ok(`Added; \`Location\` is its URL.`, schemaRef(n.document), LOCATION)];
        conflict = Object.values(resource.attributes).some((a) => a.unique) ? 'Conflict' : 'TypeMismatch';
        break;
      case 'update':
        notes.push(
          'Partial: only the attributes and relationships given change; localized text is merged key by key. ' +
            '`modified_date` is set by the server; dates in the body are ignored, so a document read with GET can be sent back unchanged.',
        );
        requestBody = jsonBody(
          { type: 'object', required: ['data'], properties: { data: schemaRef(n.update) } },
          `{"data": ${n.update}}`,
        );
        success = ['200', ok('The resource as it now is.', schemaRef(n.document))];
        conflict = Object.values(resource.attributes).some((a) => a.unique) ? 'Conflict' : 'TypeMismatch';
        break;
      case 'rel-get':
        success = ['200', ok('The relationship.', relationshipDocument(rel!, 'optional'))];
        break;
      case 'rel-set': {
        const removable = rel!.removable;
        notes.push(
          removable
            ? '`{"data": null}` or `{"data": {"id": null}}` removes the link.'
            : 'The link cannot be removed: `data: null` is 400 `invalid_relationship`.',
        );
        requestBody = jsonBody(
          {
            type: 'object',
            required: ['data'],
            properties: { data: toOneInput(rel!, removable ? 'remove' : 'refused') },
          },
          'The new target.',
        );
        success = ['200', ok('The relationship as it now is.', relationshipDocument(rel!, 'never'))];
        break;
      }
      case 'related-get': {
        const data: Schema =
          rel!.cardinality === 'to-many'
            ? { type: 'array', items: schemaRef(target!.resource) }
            : rel!.required
              ? schemaRef(target!.resource)
              : { oneOf: [schemaRef(target!.resource), { type: 'null' }] };
        // What this route's `include` takes (the relationship's relatedIncludes), not the target's GET includes.
        const targetResource = resourceByType(rel!.target)!;
        const targets = [
          ...new Set((rel!.relatedIncludes ?? []).map((name) => targetResource.relationships[name]!.target)),
        ];
        success = [
          '200',
          ok(`The related ${rel!.target}.`, {
            type: 'object',
            required: ['links', 'data'],
            properties: {
              links: schemaRef('SelfLink'),
              data,
              ...(targets.length > 0 ? { included: included(targets, 'present when `include` is given') } : {}),
            },
          }),
        ];
        break;
      }
      case 'rel-add':
      case 'rel-replace':
      case 'rel-remove': {
        const children = rel!.storage.kind === 'children';
        const identifiers = {
          type: 'object',
          required: ['data'],
          properties: { data: { type: 'array', items: identifierInput(rel!.target) } },
        } satisfies SchemaObject;
        if (route.operation === 'rel-add') notes.push('Identifiers already present are kept once.');
        if (route.operation === 'rel-remove')
          notes.push(children ? 'The items named are deleted.' : 'Identifiers not present are no error.');
        if (route.operation === 'rel-replace' && children) {
          notes.push(
            'Full item objects that replace all items: the old items are deleted. A cycle in the bill of material is 409 `bom_cycle`.',
          );
          requestBody = jsonBody(
            {
              type: 'object',
              required: ['data'],
              properties: { data: { type: 'array', items: schemaRef(target!.create) } },
            },
            'The new items, as full objects.',
          );
          conflict = 'ItemsConflict';
        } else {
          requestBody = jsonBody(identifiers, 'Resource identifiers.');
        }
        success = [
          '200',
          ok(
            'The relationship as it now is (the full set).',
            relationshipDocument(rel!, children ? 'always' : 'never'),
          ),
        ];
        break;
      }
      case 'add-structure':
        notes.push(
          'The only way to add a product structure. Its items come as full objects in `relationships.items.data`. ' +
            'A second structure for the same product is 409 `conflict`; a cycle in the bill of material 409 `bom_cycle`.',
        );
        requestBody = jsonBody(
          { type: 'object', required: ['data'], properties: { data: schemaRef(names('product_structures').create) } },
          '{"data": ProductStructureCreate}',
        );
        success = [
          '201',
          ok(
            'Added; `Location` is its URL.',
            {
              type: 'object',
              required: ['data', 'included'],
              properties: {
                data: schemaRef(names('product_structures').resource),
                included: included(['product_structure_items'], 'its items'),
              },
            },
            LOCATION,
          ),
        ];
        conflict = 'StructureConflict';
        break;
      case 'add-items':
        notes.push('The items are added; existing ones are kept. A cycle in the bill of material is 409 `bom_cycle`.');
        requestBody = jsonBody(
          {
            type: 'object',
            required: ['data'],
            properties: { data: { type: 'array', items: schemaRef(target!.create) } },
          },
          'The new items, as full objects.',
        );
        success = [
          '201',
          ok('All items of the structure, as identifiers and in `included`.', relationshipDocument(rel!, 'always')),
        ];
        conflict = 'ItemsConflict';
        break;
    }
  }

  const posting = route.method === 'POST' && !route.refused;
  if (success && !route.refused) addConditionalParameters(route, parameters);
  const responses: ResponsesObject = {};
  if (success) responses[success[0]] = withValidators(route, success[1]);
  if (reading) responses['304'] = responseRef('NotModified');
  responses['400'] = responseRef(route.refused ? 'BadToken' : requestBody ? 'BadRequestBody' : 'BadRequest');
  responses['401'] = responseRef('Unauthorized');
  responses['403'] = responseRef(reading ? 'ForbiddenScope' : 'Forbidden');
  if (!route.refused && notFound) responses['404'] = responseRef('NotFound');
  if (requestBody) {
    if (conflict) responses['409'] = responseRef(posting ? `${conflict}OnPost` : conflict);
    if (!route.refused) responses['412'] = responseRef('PreconditionFailed');
    responses['413'] = responseRef('PayloadTooLarge');
    responses['415'] = responseRef('UnsupportedMediaType');
  }
  if (posting) responses['422'] = responseRef('IdempotencyKeyReused');
  if (!route.refused) responses['503'] = responseRef('ServiceUnavailable');

  return {
    tags: [route.type],
    summary,
    operationId,
    description: [`Scope: \`${scope}\`.`, ...notes].join(' '),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    ...(rel?.deprecated ? { deprecated: true } : {}),
  };
}

/**
 * Adds the header parameters of conditional requests and retries an operation takes:
 * If-None-Match on reads, If-Match on writes, Idempotency-Key on POSTs.
 */
function addConditionalParameters(route: RestRoute, parameters: (ParameterObject | ReferenceObject)[]): void {
  if (route.method === 'GET') parameters.push({ $ref: '#/components/parameters/If-None-Match' });
  else parameters.push({ $ref: `#/components/parameters/${route.operation === 'add' ? 'If-Match-ADD' : 'If-Match'}` });
  if (route.method === 'POST') parameters.push({ $ref: '#/components/parameters/Idempotency-Key' });
}

/** The validators and cache rule of a success answer: every GET's, and the resource's own tag after ADD and PATCH. */
function withValidators(route: RestRoute, response: ResponseObject): ResponseObject {
  const tagged =
    route.method === 'GET' || route.operation === 'add' || (route.operation === 'update' && route.method === 'PATCH');
  const headers: ResponseObject['headers'] = { ...response.headers };
  if (tagged)
    headers.ETag = { $ref: route.method === 'GET' ? '#/components/headers/ETag' : '#/components/headers/ResourceETag' };
  if (route.method === 'GET') headers['Cache-Control'] = { $ref: '#/components/headers/Cache-Control' };
  if (route.method === 'POST') headers['Idempotent-Replayed'] = { $ref: '#/components/headers/Idempotent-Replayed' };
  return Object.keys(headers).length > 0 ? { ...response, headers } : response;
}

/** `/customers/:id` -> `/customers/{id}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const DESCRIPTION = `The REST compatibility layer of the master-data gateway: the old JSON:API-style interface (customers, products, bills of material, suppliers and their lookups), on the same paths.

## Authentication

Every operation needs an OAuth 2.0 access token: \`Authorization: Bearer <access_token>\`. Get one from the token endpoint \`POST oauth/token.php\` (the \`oauth\` operations below; relative to this service's base URL; \`application/x-www-form-urlencoded\`, client authentication with HTTP Basic):

    curl -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials <base URL>/oauth/token.php

and refresh it with \`grant_type=refresh_token&refresh_token=...\` when an operation answers 401 \`invalid_token\`. Tokens with the \`read\` scope may read (GET); every other method needs \`write\` (else 403 \`insufficient_scope\`). Here, **Authorize** takes the access token.

## Documents

Resource objects \`{type, id, attributes, relationships, links}\` with every attribute and every relationship; localized text is always \`{nl, fr, en, de}\`; numbers are JSON numbers and decimals round-trip exactly; date-times are ATOM (\`${ATOM_EXAMPLE}\`), set by the server. Responses are \`application/json; charset=utf-8\`; request bodies \`application/json\` or \`application/vnd.api+json\`. Every write is one transaction.

## Versions, conditional requests, safe retries

Every resource object carries \`meta.version\` (an extension of the old interface): 1 when added, one more with every write that changes its document; a write that changes nothing (a GET document sent back) keeps it, and its \`modified_date\`.

Every GET answer has a strong \`ETag\` and \`Cache-Control: private, no-cache\`; send the tag back in \`If-None-Match\` and, while nothing changed, the answer is 304 without a body. Writes to a resource and to its relationship paths take \`If-Match\` with the tag its GET (without \`include\`) answered: when someone else changed the resource in between, 412 \`precondition_failed\` and nothing is written, so two clients can never overwrite each other unknowingly:

    curl -si -H "Authorization: Bearer $TOKEN" <base URL>/products/12 | grep -i etag      # ETag: "3-5d41402a"
    curl -s -X PATCH -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -H 'If-Match: "3-5d41402a"' \\
         -d '{"data":{"type":"products","attributes":{"consumer_price":2.59}}}' <base URL>/products/12

A POST (ADD, REL-ADD, structures and items) with \`Idempotency-Key: <your key>\` runs once: a retry with the same key and request within 24 hours gets the first answer again with \`Idempotent-Replayed: true\` (422 \`idempotency_key_reused\` for another request, 409 \`idempotency_key_in_use\` while the first still runs).

## Errors

Shape A for 404: \`{"errors": {"status": 404, "detail": "customers 42 not found"}}\`. Shape B for every other 4xx and for 5xx: \`{"error": {"code": "invalid_attribute", "http_code": 400, "message": "..."}}\`. A method a path does not take is 405 \`method_not_allowed\` with \`Allow\` (not listed per operation). Authentication errors are RFC 6750's \`{"error": "invalid_token", "error_description": "..."}\` with \`WWW-Authenticate\`.`;

const ID_PARAMETER: ParameterObject = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The resource id. Anything but a positive integer is not found (404).',
  schema: { type: 'integer', minimum: 1, maximum: INT32_MAX },
};

function build(): OpenAPIObject {
  const builder = OpenApiBuilder.create({
    openapi: '3.1.0',
    info: { title: API_TITLE, version: version(), description: DESCRIPTION },
    // Every REST route needs a token (auth.md); the document and its reference page are open but are not REST routes.
    security: [{ bearerAuth: [] }],
    paths: {},
  })
    .addSecurityScheme('clientBasic', CLIENT_BASIC_SCHEME)
    .addSecurityScheme('bearerAuth', {
      type: 'http',
      scheme: 'bearer',
      description: 'An access token from `POST oauth/token.php` (opaque, `mda_...`).',
    })
    .addParameter('page', {
      name: 'page',
      in: 'query',
      required: false,
      description: 'The page, from 1.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    })
    .addParameter('per_page', {
      name: 'per_page',
      in: 'query',
      required: false,
      description: `Resources per page, 1 to ${MAX_PER_PAGE}.`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE },
    })
    .addHeader('Location', {
      description: 'The URL of the new resource.',
      required: true,
      schema: { type: 'string', format: 'uri' },
    })
    .addHeader('WWW-Authenticate', {
      description:
        'The bearer challenge: `Bearer realm="master-data"`, with `error="invalid_token", error_description="..."` when a token was given.',
      required: true,
      schema: { type: 'string' },
    })
    .addHeader('Retry-After', {
      description: 'Seconds to wait before retrying.',
      schema: { type: 'integer', minimum: 1 },
    })
    .addHeader('ETag', {
      description:
        "A strong entity tag of this answer; send it back in `If-None-Match` to get 304 while it holds. GET of a resource without `include` answers the resource's own tag, which `If-Match` on a write takes.",
      required: true,
      schema: { type: 'string', examples: ['"3-5d41402a"'] },
    })
    .addHeader('ResourceETag', {
      description:
        "The resource's own tag after the write (what its GET without `include` answers), for the next `If-Match`.",
      required: true,
      schema: { type: 'string', examples: ['"4-5d41402a"'] },
    })
    .addHeader('Cache-Control', {
      description:
        '`private, no-cache`: a client may keep the answer but must revalidate it (`If-None-Match`); shared caches keep nothing.',
      schema: { type: 'string' },
    })
    .addHeader('Idempotent-Replayed', {
      description:
        '`true` on the kept answer to an earlier request with the same `Idempotency-Key`: nothing was written this time.',
      schema: { type: 'string', const: 'true' },
    })
    .addParameter('If-None-Match', {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description:
        'Entity tags (`"..."`, `W/"..."`) or `*`: when one is the answer\'s current tag, 304 without a body.',
      schema: { type: 'string' },
    })
    .addParameter('If-Match', {
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        "The resource's tag as `GET /{type}/{id}` (without `include`) answered it, or `*`. When the resource has changed since, 412 `precondition_failed` and nothing is written; without it the write goes ahead. Weak tags never match.",
      schema: { type: 'string' },
    })
    .addParameter('If-Match-ADD', {
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'Only `*` can hold: a resource not yet added has no tag (any other value is 412).',
      schema: { type: 'string' },
    })
    .addParameter('Idempotency-Key', {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'A key of your choosing (1 to 255 visible ASCII characters, bare or quoted) that makes retrying safe: within 24 hours the same request with the same key (same client, method, path, query and body) writes nothing again and gets the first answer, with `Idempotent-Replayed: true`. The same key with another request: 422 `idempotency_key_reused`; while the first still runs: 409 `idempotency_key_in_use` with `Retry-After`.',
      schema: { type: 'string', minLength: 1, maxLength: 257 },
    })
    .addHeader('Allow', { description: 'The methods the path takes.', schema: { type: 'string' } });

  for (const [name, schema] of Object.entries(sharedSchemas())) builder.addSchema(name, schema);
  for (const resource of resources) {
    builder.addTag({ name: resource.type, description: `${title(resource.type)} (type \`${resource.type}\`)` });
    for (const [name, schema] of Object.entries(resourceSchemas(resource))) builder.addSchema(name, schema);
  }
  for (const [name, response] of Object.entries(ERROR_RESPONSES)) builder.addResponse(name, response);

  builder.addTag(OAUTH_TAG);
  for (const [path, item] of Object.entries(oauthPaths(responseRef))) builder.addPath(path, item);
  for (const route of REST_ROUTES) {
    const path = openApiPath(route.path);
    // The path parameter inline: Swagger UI leaves a path-level $ref parameter unresolved.
    const item = builder.rootDoc.paths?.[path] ?? (route.path.includes(':id') ? { parameters: [ID_PARAMETER] } : {});
    builder.addPath(path, { ...item, [route.method.toLowerCase()]: operationOf(route) });
  }
  return builder.getSpec();
}

let built: OpenAPIObject | undefined;

/**
 * The document, with `servers` naming the base path the routes are under (`BASE_PATH`), so that
 * the API reference's "Try it out" reaches them. The rest is built once and shared.
 */
export function openApiDocument(basePath = ''): OpenAPIObject {
  built ??= build();
  return { ...built, servers: [{ url: basePath || '/', description: 'this service' }] };
}
