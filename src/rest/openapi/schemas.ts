/**
 * The component schemas of the REST API's OpenAPI document: each resource type as documents show
 * it and as request bodies write it (the write rules of ../../data/writes.ts and
 * ../../data/validate.ts), its documents, and the values they share (localized text, ids, links).
 */
import type { SchemaObject } from 'openapi3-ts/oas31';
import { NUMBER_RULE } from '../../db/decimal.ts';
import { MAX_TEXT_LENGTH, ruleNote } from '../../data/validate.ts';
import { formatSchema } from '../../data/formats.ts';
import { isWritable } from '../../data/relationship-rules.ts';
import {
  LOCALES,
  type Attribute,
  type Relationship,
  type ResourceDefinition,
  type ScalarType,
} from '../../resources/types.ts';
import { extensionOf } from '../../resources/extensions.ts';
import { MAX_PER_PAGE } from '../query.ts';
import {
  ATOM_EXAMPLE,
  ATOM_PATTERN,
  INT32_MAX,
  names,
  one,
  schemaRef,
  title,
  withNull,
  type Schema,
} from './common.ts';

const DECIMAL_NOTE = NUMBER_RULE;

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
  const extension = extensionOf(attribute);
  if (extension) notes.push(extension);
  if (attribute.write === 'server')
    notes.push('Set by the server on every write (ATOM form); ignored in request bodies.');
  const rule = attribute.write === 'client' ? ruleNote(attribute) : undefined;
  if (rule) notes.push(rule);
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
  for (const bound of ['minimum', 'exclusiveMinimum', 'maximum'] as const)
    if (attribute[bound] !== undefined) schema[bound] = attribute[bound];
  if (attribute.format) Object.assign(schema, formatSchema(attribute.format));
  if (attribute.observedValues) schema.examples = [...attribute.observedValues];
  return described(withNull(schema, attribute.nullable));
}

/** A resource identifier as request bodies take it: the id as a number or a string of digits. */
export function identifierInput(target: string): SchemaObject {
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
export function toOneInput(rel: Relationship, nulls: 'refused' | 'remove' | 'unset'): Schema {
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
export function relationshipData(rel: Relationship): Schema {
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
  const extension = extensionOf(rel);
  if (extension) description = `${extension}${description ? ` ${description}` : ''}`;
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

/** `{description}` of the notes that apply, or nothing when none does. */
function described(notes: (string | false | undefined)[]): { description?: string } {
  const text = notes.filter(Boolean).join(' ');
  return text ? { description: text } : {};
}

/** The schemas of one resource type: how documents show it, how bodies write it, and its documents. */
export function resourceSchemas(resource: ResourceDefinition): Record<string, SchemaObject> {
  return { ...readSchemas(resource), ...writeSchemas(resource), ...documentSchemas(resource) };
}

/** The resource object as documents show it: identifier, attributes, relationships. */
function readSchemas(resource: ResourceDefinition): Record<string, SchemaObject> {
  const { type } = resource;
  const n = names(type);
  const rels = Object.entries(resource.relationships);
  const attributeNames = Object.keys(resource.attributes);
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
      description: [`${title(type)} (type \`${type}\`).`, extensionOf(resource)].filter(Boolean).join(' '),
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
            required: ['data'],
            additionalProperties: false,
            properties: { data: relationshipData(rel) },
            ...(rel.deprecated ? { deprecated: true } : {}),
            ...described([extensionOf(rel), rel.deprecated && `Deprecated: use \`${rel.deprecated.replacedBy}\`.`]),
          } satisfies SchemaObject,
        ]),
      ),
    };
  }
  return schemas;
}

/** What ADD and UPDATE bodies take. */
function writeSchemas(resource: ResourceDefinition): Record<string, SchemaObject> {
  const { type } = resource;
  const n = names(type);
  const rels = Object.entries(resource.relationships);
  const attributeNames = Object.keys(resource.attributes);
  const requiredAttributes = attributeNames.filter((a) => resource.attributes[a]!.required);
  const createRels = rels.filter(([, rel]) => creatable(rel));
  const requiredRels = createRels.filter(([, rel]) => rel.required).map(([name]) => name);
  return {
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
  };
}

/** The single-resource document and the LIST page. */
function documentSchemas(resource: ResourceDefinition): Record<string, SchemaObject> {
  const n = names(resource.type);
  const includable = (list: readonly string[]) => [
    ...new Set(list.map((name) => resource.relationships[name]!.target)),
  ];
  return {
    [n.document]: {
      type: 'object',
      required: ['data'],
      properties: {
        data: schemaRef(n.resource),
        meta: {
          type: 'object',
          description: 'On GET answers (not on those of writes).',
          required: ['changes_cursor'],
          additionalProperties: false,
          properties: { changes_cursor: CHANGES_CURSOR },
        },
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
}

/** `meta.changes_cursor` (../changes.ts): where a reader follows the change log from. */
const CHANGES_CURSOR: SchemaObject = {
  type: 'string',
  pattern: '^\\d{1,10}$',
  description:
    'Extension (not in the master-data spec): the position of the change log when this read was taken; follow `GET /changes?after=` it to learn every later write. Not part of the entity tag.',
};

/** `included`: the related resources, each once, never one of the primary data. */
export function included(targets: readonly string[], when: string): SchemaObject {
  const description = `Related resources, each once (unique by type and id), never one of the primary data; ${when}.`;
  if (targets.length === 0) return { type: 'array', maxItems: 0, description };
  const items =
    targets.length === 1
      ? schemaRef(names(targets[0]!).resource)
      : { oneOf: targets.map((t) => schemaRef(names(t).resource)) };
  return { type: 'array', items, description };
}

/** The value schemas every type's schemas refer to. */
export function valueSchemas(): Record<string, SchemaObject> {
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
      description: `A resource id: a whole number from 1 to ${INT32_MAX} (the database's 32-bit integers), or a string of its digits; another is 400 \`invalid_relationship\`.`,
      oneOf: [
        { type: 'integer', minimum: 1, maximum: INT32_MAX },
        { type: 'string', pattern: '^[1-9][0-9]{0,9}$' },
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
      required: ['total', 'count', 'pages', 'per_page', 'changes_cursor'],
      properties: {
        total: { type: 'integer', minimum: 0, description: 'Resources matching the filters.' },
        count: { type: 'integer', minimum: 0, description: 'Resources on this page.' },
        pages: { type: 'integer', minimum: 0, description: 'Pages; 0 when `total` is 0.' },
        per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE },
        changes_cursor: CHANGES_CURSOR,
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
  };
}
